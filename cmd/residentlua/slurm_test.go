package main

import (
	"bytes"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// cluster is a single-node Slurm of its own: munged, slurmctld and slurmd
// run from a configuration in a temporary directory (no systemd, no
// cgroups, no accounting), on ports of their own.
type cluster struct {
	t    *testing.T // the test that started it
	dir  string
	env  []string // SLURM_CONF for the Slurm commands
	node string
}

// startCluster brings the cluster up, or fails the test saying why: a
// machine where Slurm cannot start cannot run the recipe the docs give.
func startCluster(t *testing.T) *cluster {
	t.Helper()
	t.Setenv("PATH", os.Getenv("PATH")+":/usr/sbin:/sbin") // where Debian puts the daemons
	for _, tool := range []string{"munged", "mungekey", "slurmctld", "slurmd", "sbatch", "squeue", "scontrol", "scancel"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Fatalf("Slurm cannot start: %s is not installed (Debian: apt-get install slurm-wlm munge; .ci/run installs them)", tool)
		}
	}
	dir, err := os.MkdirTemp("", "slurm-")
	if err == nil {
		err = os.Chmod(dir, 0o755) // munged wants every directory above its socket searchable
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	host, err := os.Hostname()
	if err != nil {
		t.Fatal(err)
	}
	host, _, _ = strings.Cut(host, ".")
	me, err := user.Current()
	if err != nil {
		t.Fatal(err)
	}
	c := &cluster{t: t, dir: dir, node: host, env: []string{"SLURM_CONF=" + filepath.Join(dir, "slurm.conf")}}
	for _, sub := range []string{"state", "spool"} {
		os.Mkdir(filepath.Join(dir, sub), 0o755)
	}
	key, sock := filepath.Join(dir, "munge.key"), filepath.Join(dir, "munge.sock")
	if out, err := exec.Command("mungekey", "--create", "--keyfile="+key).CombinedOutput(); err != nil {
		t.Fatalf("Slurm cannot start: mungekey: %v\n%s", err, out)
	}
	c.daemon("munged", "-F", "-f", "--key-file="+key, "--socket="+sock, "--pid-file="+filepath.Join(dir, "munged.pid"),
		"--seed-file="+filepath.Join(dir, "munged.seed"), "--log-file="+filepath.Join(dir, "munged.log"))
	c.waitFor(t, "munged's socket (Slurm cannot start)", func() bool { _, err := os.Stat(sock); return err == nil })
	conf := fmt.Sprintf(`ClusterName=residentlua-test
SlurmctldHost=%[1]s
SlurmctldPort=%[2]d
SlurmdPort=%[3]d
SlurmUser=%[4]s
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=%[5]s
CredType=cred/munge
StateSaveLocation=%[6]s/state
SlurmdSpoolDir=%[6]s/spool
SlurmctldPidFile=%[6]s/slurmctld.pid
SlurmdPidFile=%[6]s/slurmd.pid
SlurmctldLogFile=%[6]s/slurmctld.log
SlurmdLogFile=%[6]s/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SchedulerType=sched/builtin
MpiDefault=none
ReturnToService=2
KillWait=5
NodeName=%[1]s CPUs=2 State=UNKNOWN
PartitionName=debug Nodes=%[1]s Default=YES MaxTime=INFINITE State=UP
`, host, freePort(t), freePort(t), me.Username, sock, dir)
	if err := os.WriteFile(filepath.Join(dir, "slurm.conf"), []byte(conf), 0o644); err != nil {
		t.Fatal(err)
	}
	conf = filepath.Join(dir, "slurm.conf")
	c.daemon("slurmctld", "-D", "-f", conf)
	c.daemon("slurmd", "-D", "-f", conf)
	c.waitFor(t, "the node to be idle (Slurm cannot start)", func() bool {
		out, _ := c.command("sinfo", "-h", "-o", "%t")
		return strings.TrimSpace(out) == "idle"
	})
	return c
}

// freePort is a TCP port nothing listens on now.
func freePort(t *testing.T) int {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// daemon starts a daemon in the foreground, stopped at the test's end.
func (c *cluster) daemon(name string, args ...string) {
	cmd := exec.Command(name, args...)
	cmd.Env = append(os.Environ(), c.env...)
	log, _ := os.Create(filepath.Join(c.dir, name+".out"))
	cmd.Stdout, cmd.Stderr = log, log
	if err := cmd.Start(); err != nil {
		c.t.Fatalf("Slurm cannot start: %s: %v", name, err)
	}
	c.t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
		log.Close()
	})
}

// waitFor waits up to three minutes (a loaded machine, a binary built with
// -race) for ready, or fails the test with the daemons' logs.
func (c *cluster) waitFor(t *testing.T, what string, ready func() bool) {
	t.Helper()
	for deadline := time.Now().Add(3 * time.Minute); !ready(); time.Sleep(200 * time.Millisecond) {
		if time.Now().After(deadline) {
			var logs bytes.Buffer
			for _, name := range []string{"munged.out", "slurmctld.out", "slurmctld.log", "slurmd.out", "slurmd.log"} {
				b, _ := os.ReadFile(filepath.Join(c.dir, name))
				fmt.Fprintf(&logs, "--- %s\n%s", name, b)
			}
			t.Fatalf("waited three minutes for %s\n%s", what, logs.String())
		}
	}
}

// command runs a Slurm command of the cluster.
func (c *cluster) command(name string, args ...string) (string, error) {
	cmd := exec.Command(name, args...)
	cmd.Env = append(os.Environ(), c.env...)
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// jobs lists the cluster's jobs (array tasks apart) and their states.
func (c *cluster) jobs() map[string]string {
	out, _ := c.command("squeue", "-h", "-r", "-o", "%i %T")
	jobs := map[string]string{}
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		if id, state, ok := strings.Cut(l, " "); ok {
			jobs[id] = state
		}
	}
	return jobs
}

// exitCode is a finished job's exit status, as scontrol reports it.
func (c *cluster) exitCode(t *testing.T, job string) int {
	out, err := c.command("scontrol", "show", "job", job)
	m := regexp.MustCompile(`\bExitCode=(\d+):`).FindStringSubmatch(out)
	if err != nil || m == nil {
		t.Fatalf("scontrol show job %s: %v\n%s", job, err, out)
	}
	n, _ := strconv.Atoi(m[1])
	return n
}

// recipe is the Slurm recipe of docs/campaigns.md: the batch script and
// the commands that submit it with its merge.
func recipe(t *testing.T) (sbatch, submit string) {
	doc := string(readFile(t, filepath.Join(repoRoot, "docs", "campaigns.md")))
	m := regexp.MustCompile("(?s)\\(`campaign.sbatch`\\):\n\n```bash\n(.*?)```.*?```sh\n(.*?)```").FindStringSubmatch(doc)
	if m == nil {
		t.Fatal("docs/campaigns.md has no Slurm recipe (campaign.sbatch, then the commands that submit it)")
	}
	return m[1], m[2]
}

// slurmCase is one run of the recipe: the trial script (run as
// scripts/campaign.lua is in the docs), and what the test does while it runs.
type slurmCase struct {
	name, script string
	during       func(t *testing.T, c *cluster, array string)
}

// TestSlurmRecipe runs the docs' Slurm recipe, scaled to 4 shards of 200
// trials on one worker each, on a single-node Slurm: with every shard
// passing, the merge equals a single run byte for byte; with a shard whose
// trial fails, the merge runs all the same and lists it (exit 1); with a
// task cancelled while it runs, the merge names it and exits 2.
func TestSlurmRecipe(t *testing.T) {
	c := startCluster(t)
	sbatch, submit := recipe(t)
	scale := strings.NewReplacer("--array=0-15", "--array=0-3", "--cpus-per-task=16", "--cpus-per-task=1",
		"--trials 10000000", "--trials 200", "--time=02:00:00", "--time=00:05:00")
	sbatch = scale.Replace(sbatch)
	if strings.Contains(sbatch, "10000000") || !strings.Contains(sbatch, "--array=0-3") {
		t.Fatalf("the recipe's sbatch script did not scale down:\n%s", sbatch)
	}
	work := t.TempDir()
	if err := os.Symlink(binary, filepath.Join(work, "residentlua")); err != nil {
		t.Fatal(err)
	}
	os.Mkdir(filepath.Join(work, "scripts"), 0o755)
	writeFile(t, work, "campaign.sbatch", sbatch)

	passing := string(readFile(t, filepath.Join(repoRoot, trialScript)))
	for _, tc := range []slurmCase{
		{name: "passing", script: passing},
		{name: "failing", script: strings.Replace(passing, "function trial(t)", "function trial(t)\n  if t.index == 101 then error(\"a trial that fails\") end", 1)},
		{name: "cancelled", script: `function trial(t)
  if t.index % 4 == 2 then while true do end end
  t.record("index", t.index)
end`, during: func(t *testing.T, c *cluster, array string) {
			task := array + "_2"
			c.waitFor(t, "task 2 to run and the others to end", func() bool {
				jobs := c.jobs()
				return jobs[task] == "RUNNING" && jobs[array+"_0"] == "" && jobs[array+"_1"] == "" && jobs[array+"_3"] == ""
			})
			time.Sleep(time.Second) // the shard's trial has started
			if out, err := c.command("scancel", task); err != nil {
				t.Fatalf("scancel %s: %v\n%s", task, err, out)
			}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			writeFile(t, work, "scripts/campaign.lua", tc.script)
			results, merge := c.submit(t, work, submit, tc.during)
			text := string(readFile(t, filepath.Join(results, "campaign.txt")))
			log := string(readFile(t, filepath.Join(results, "merge.log")))
			code := c.exitCode(t, merge)
			switch tc.name {
			case "passing":
				single := runCmd(t, work, "", "campaign", "scripts/campaign.lua", "--trials", "200", "--seed", "1",
					"--summary", filepath.Join(work, "single.json"))
				if code != 0 || text != single.stdout {
					t.Errorf("merge exit %d; campaign.txt:\n%s\nthe single run:\n%s\nmerge.log:\n%s", code, text, single.stdout, log)
				}
				if got, want := readFile(t, filepath.Join(results, "campaign.json")), readFile(t, filepath.Join(work, "single.json")); !bytes.Equal(got, want) {
					t.Errorf("campaign.json differs from the single run's summary:\n%s\nwant:\n%s", got, want)
				}
				for _, pic := range []string{"campaign_decision_to_retirement.svg", "campaign_payload_bytes.svg"} {
					readFile(t, filepath.Join(results, pic))
				}
			case "failing":
				if code != 1 || !strings.Contains(text, "FAIL seed 102 (error): ") || !strings.Contains(text, "a trial that fails") {
					t.Errorf("merge exit %d, want 1 and the failure; campaign.txt:\n%s\nmerge.log:\n%s", code, text, log)
				}
			case "cancelled":
				if code != 2 || !strings.Contains(log, "the campaign is incomplete: shard 2") {
					shard, _ := os.ReadFile(filepath.Join(results, "shard-2.log"))
					t.Errorf("merge exit %d, want 2 naming shard 2; merge.log:\n%s\ncampaign.txt:\n%s\nshard-2.log:\n%s", code, log, text, shard)
				}
			}
		})
	}
}

// submit runs the recipe's commands in work, runs during (if any) with the
// array job's id, waits for every job to end, and returns the results
// folder and the merge job's id.
func (c *cluster) submit(t *testing.T, work, submit string, during func(t *testing.T, c *cluster, array string)) (results, merge string) {
	t.Helper()
	before, _ := filepath.Glob(filepath.Join(work, "results", "*"))
	cmd := exec.Command("sh", "-c", submit)
	cmd.Dir = work
	cmd.Env = append(os.Environ(), c.env...)
	out, err := cmd.CombinedOutput()
	m := regexp.MustCompile(`Submitted batch job (\d+)`).FindStringSubmatch(string(out))
	if err != nil || m == nil {
		t.Fatalf("the recipe's commands: %v\n%s", err, out)
	}
	merge = m[1]
	after, _ := filepath.Glob(filepath.Join(work, "results", "*"))
	if len(after) != len(before)+1 {
		t.Fatalf("the recipe made %d results folders, want one new: %v", len(after)-len(before), after)
	}
	for _, f := range after {
		if !slices.Contains(before, f) {
			results = f
		}
	}
	if during != nil {
		id, _ := strconv.Atoi(merge)
		during(t, c, strconv.Itoa(id-1))
	}
	c.waitFor(t, "the jobs to end", func() bool { return len(c.jobs()) == 0 })
	return results, merge
}
