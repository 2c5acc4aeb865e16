// The Go consumer of the release (tests/dist/go/consumer_test.sh builds it outside the
// workspace against share/go/ctorch/ of the archive, through `#cgo pkg-config: ctorch`).
// usage: app <version>: checks that the loaded libctorch and the header the module was
// generated from are that version, prints a matrix product and checks its values.
package main

import (
	"fmt"
	"os"

	"ctorch.dev/ctorch"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: app <version>")
		os.Exit(2)
	}
	if err := run(os.Args[1]); err != nil {
		fmt.Fprintln(os.Stderr, "go consumer:", err)
		os.Exit(1)
	}
}

func run(version string) error {
	major, minor, patch, err := ctorch.Version()
	if err != nil {
		return err
	}
	if got := fmt.Sprintf("%d.%d.%d", major, minor, patch); got != version {
		return fmt.Errorf("libctorch is version %s, want %s", got, version)
	}
	hmajor, hminor, hpatch := ctorch.HeaderVersion()
	if got := fmt.Sprintf("%d.%d.%d", hmajor, hminor, hpatch); got != version {
		return fmt.Errorf("the module was generated from ctorch.h %s, want %s", got, version)
	}

	// [[1, 2], [3, 4]] @ [[1, 2], [3, 4]] = [[7, 10], [15, 22]]
	a, err := ctorch.FromSlice([]float32{1, 2, 3, 4}, []int64{2, 2})
	if err != nil {
		return err
	}
	defer a.Close()
	p, err := a.Matmul(a)
	if err != nil {
		return err
	}
	defer p.Close()
	fmt.Println(p)
	got, err := p.Float32s()
	if err != nil {
		return err
	}
	want := []float32{7, 10, 15, 22}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		return fmt.Errorf("a @ a = %v, want %v", got, want)
	}
	fmt.Println("go consumer: ok, ctorch", version)
	return nil
}
