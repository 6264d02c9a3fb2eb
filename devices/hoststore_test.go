package devices

// storeWord writes a word as the host, as Publish does with no cause and no
// publication, failing only on a stale buffer: the tests' way to change
// memory under a waiting program.
func (b *Buffer) storeWord(off int, v uint32) error {
	if err := b.staleError("store"); err != nil {
		return err
	}
	b.hostStore(off, v, &hostEvents{stream: &b.profile.fabric.events})
	return nil
}

// release executes p on its own, as Publish does after its store.
func (p *Publication) release() error {
	if err := p.buffer.staleError("publish"); err != nil {
		return err
	}
	return p.execute(&hostEvents{stream: &p.buffer.profile.fabric.events})
}
