// Allreduce: the members of one NCCL communicator, in processes on one host or on several,
// all-reduce a tensor. The unique id goes from rank 0 to the others through a file.
//
//	import os, sys, time, torch, torch.distributed as dist
//	rank, nranks, path = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
//	store = dist.FileStore(path, nranks)          # the id exchange, through a file
//	device = rank % torch.cuda.device_count()
//	torch.cuda.set_device(device)
//	dist.init_process_group("nccl", store=store, rank=rank, world_size=nranks)
//	x = torch.full((4,), float(rank + 1), device="cuda")
//	dist.all_reduce(x, dist.ReduceOp.SUM)
//	print(x)                                      # nranks * (nranks + 1) / 2 everywhere
//
// usage: allreduce [<rank> <nranks> <id-file>]; the default is 0 1 and a file of its own (one
// member). Two members on one host, or on two hosts sharing the file's folder (or with the
// file copied from the first host to the second, at the same path):
//
//	bazel run //examples/go:allreduce -- 0 2 /shared/nccl-id &
//	bazel run //examples/go:allreduce -- 1 2 /shared/nccl-id
//
// Rank 0 writes the id to a temporary name and renames it, so no reader ever sees half a
// file; the others poll for the file. Start each run with a path that holds no id of an
// earlier run (rank 0 removes the file once every member has joined). Each member joins on
// device rank % (the number of GPUs it sees). Without a GPU or without NCCL it says why and
// stops.
package main

import (
	"fmt"
	"log"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"time"

	"ctorch.dev/ctorch"
	"ctorch.dev/ctorch/cuda"
	"ctorch.dev/ctorch/nccl"
)

// joinTimeout bounds both the wait for the id file and the wait for the other members.
const joinTimeout = 2 * time.Minute

func main() {
	rank, nranks, path, err := parseArgs(os.Args[1:])
	if err != nil {
		fmt.Fprintln(os.Stderr, "usage: allreduce [<rank> <nranks> <id-file>]:", err)
		os.Exit(2)
	}
	if err := cuda.CheckAvailable(); err != nil {
		fmt.Println("no GPU here:", err)
		return
	}
	if !nccl.IsAvailable() {
		_, _, _, err := nccl.Version()
		fmt.Println("NCCL cannot be used here:", err)
		return
	}
	if err := run(rank, nranks, path); err != nil {
		log.Fatalf("rank %d: %v", rank, err)
	}
}

func parseArgs(args []string) (rank, nranks int, path string, err error) {
	switch len(args) {
	case 0:
		return 0, 1, filepath.Join(os.TempDir(), fmt.Sprintf("ctorch-nccl-id-%d", os.Getpid())), nil
	case 3:
	default:
		return 0, 0, "", fmt.Errorf("%d arguments", len(args))
	}
	if rank, err = strconv.Atoi(args[0]); err != nil {
		return 0, 0, "", err
	}
	if nranks, err = strconv.Atoi(args[1]); err != nil {
		return 0, 0, "", err
	}
	if nranks < 1 || rank < 0 || rank >= nranks {
		return 0, 0, "", fmt.Errorf("rank %d of %d members", rank, nranks)
	}
	return rank, nranks, args[2], nil
}

func run(rank, nranks int, path string) error {
	// The current device and stream belong to the OS thread: stay on one.
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()

	var id []byte
	var err error
	if rank == 0 {
		if id, err = nccl.UniqueID(); err != nil {
			return err
		}
		if err := publish(path, id); err != nil {
			return err
		}
	} else if id, err = await(path, nccl.UniqueIDBytes, joinTimeout); err != nil {
		return err
	}

	device := rank % cuda.DeviceCount()
	c, err := nccl.Init(nranks, id, rank, device, joinTimeout) // waits for every member
	if err != nil {
		return err
	}
	defer c.Close()
	if rank == 0 {
		os.Remove(path) // every member has the id now
	}

	x, err := ctorch.Full([]int64{4}, float64(rank+1), ctorch.CUDADevice(device))
	if err != nil {
		return err
	}
	defer x.Close()
	if err := c.AllReduce(x, nccl.Sum, nil); err != nil { // queued on the current stream
		return err
	}
	fmt.Printf("rank %d of %d on cuda:%d: %v\n", rank, nranks, device, x) // waits for it
	got, err := x.Float64s()
	if err != nil {
		return err
	}
	want := float64(nranks * (nranks + 1) / 2)
	for _, v := range got {
		if v != want {
			return fmt.Errorf("all_reduce gave %v, want %v everywhere", got, want)
		}
	}
	fmt.Printf("rank %d: the sum %v is nranks*(nranks+1)/2 as expected\n", rank, want)
	return c.Destroy() // waits for the queued work; Close then releases the handle
}

// publish writes id to path so that a reader sees all of it or nothing: a temporary file in
// the same folder, renamed.
func publish(path string, id []byte) error {
	f, err := os.CreateTemp(filepath.Dir(path), filepath.Base(path)+".tmp*")
	if err != nil {
		return err
	}
	_, err = f.Write(id)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(f.Name(), path)
	}
	if err != nil {
		os.Remove(f.Name())
	}
	return err
}

// await polls for the file at path, at most timeout, and returns its n bytes.
func await(path string, n int, timeout time.Duration) ([]byte, error) {
	deadline := time.Now().Add(timeout)
	for {
		b, err := os.ReadFile(path)
		switch {
		case err == nil && len(b) == n:
			return b, nil
		case err == nil:
			return nil, fmt.Errorf("%s holds %d bytes, not a unique id of %d", path, len(b), n)
		case !os.IsNotExist(err):
			return nil, err
		case time.Now().After(deadline):
			return nil, fmt.Errorf("no unique id in %s after %v (is rank 0 running?)", path, timeout)
		}
		time.Sleep(100 * time.Millisecond)
	}
}
