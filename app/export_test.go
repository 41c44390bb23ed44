package app

// RehearsalsPreempted is how many rehearsals consensus has cancelled to
// take the block slot.
func (e *Executor) RehearsalsPreempted() int64 { return e.slot.preempted.Load() }
