// The fault-injecting proxy of the reliability tests (README.md): the Go standard library only,
// so it builds without the module proxy.
module arbiter.dev/tests/faultproxy

go 1.24
