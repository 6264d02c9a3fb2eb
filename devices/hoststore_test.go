package devices

// storeWord writes a word as the host, as Publish does with no cause and no
// publication, failing only on a stale buffer: the tests' way to change
// memory under a waiting program.
func (b *Buffer) storeWord(off int, v uint32) error {
	if err := b.staleError("store"); err != nil {
		return err
	}
	events := b.profile.fabric.events.Direct()
	b.hostStore(off, v, &events)
	return nil
}

// release executes p on its own, as Publish does after its store.
func (p *Publication) release() error {
	if err := p.buffer.staleError("publish"); err != nil {
		return err
	}
	events := p.buffer.profile.fabric.events.Direct()
	return p.execute(&events)
}
