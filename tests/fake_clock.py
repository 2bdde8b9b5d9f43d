"""A clock the test moves by hand, injected where the daemon takes its clock (``Referee(clock=...)``)."""


class FakeClock:
    """A monotonic clock the test moves by hand."""

    def __init__(self, now: float = 1000.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


class FakeWall:
    """The wall clock (epoch seconds) that goes with a ``FakeClock``: ``epoch`` seconds ahead of it."""

    def __init__(self, clock: FakeClock, epoch: float = 1_800_000_000.0) -> None:
        self.clock, self.epoch = clock, epoch

    def __call__(self) -> float:
        return self.epoch + self.clock.now
