//go:build race

package ctorch_test

// raceDetector reports whether the suite was built with -race (//tests/go:go_race_test): the
// race detector's shadow memory then makes resident-memory figures meaningless.
const raceDetector = true
