// A startup failure the operator can fix: printed as one line saying what to do, no stack.
export class StartupError extends Error {}
