"""One scanner per AWS service. Each exposes `tasks(ctx) -> list[Task]`: the work it needs, per region."""
