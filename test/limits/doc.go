// Package limits holds no code: its tests run the built binary on
// hostile, huge and unreadable inputs and hold each run to a wall time
// and a peak RSS measured from the child's rusage: bad input is a finding
// or a one-line error, in bounded time and memory, never a hang, a crash
// or an OOM kill. The tests build on unix only (rusage).
package limits
