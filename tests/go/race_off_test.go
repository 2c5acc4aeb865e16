//go:build !race

package ctorch_test

// raceDetector: see race_on_test.go.
const raceDetector = false
