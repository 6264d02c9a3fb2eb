module github.com/residentlua/residentlua

go 1.26.0

require (
	github.com/HdrHistogram/hdrhistogram-go v1.4.0
	github.com/creack/pty v1.1.24
	github.com/peterh/liner v1.2.2
	github.com/yuin/gopher-lua v1.1.2
	golang.org/x/sys v0.50.0
)

require (
	github.com/ebitengine/purego v0.11.3 // indirect
	github.com/mattn/go-runewidth v0.0.3 // indirect
)
