// Command quantity-oracle prints what k8s.io/apimachinery's resource.Quantity makes of each line
// of its input, in the same format as Arbiter's quantity_echo, so that the two can be diffed.
// It is our differential test's reference: the Go module is fetched at build time, at the
// version pinned in go.mod (the release our local cluster runs).
//
// Output per line: "<input>\tOK\t<String()>\t<format>\t<Value()>\t<MilliValue()>" or
// "<input>\tERR". Values that overflow int64 print as "overflow".
package main

import (
	"bufio"
	"fmt"
	"math"
	"math/big"
	"os"
	"strconv"

	"k8s.io/apimachinery/pkg/api/resource"
)

var (
	maxInt64 = big.NewInt(math.MaxInt64)
	minInt64 = big.NewInt(math.MinInt64)
)

// scaled returns ceil(q / 10^scale) away from zero, or "overflow" when it does not fit in int64
// (Go's own accessors wrap silently, so the oracle computes it exactly).
func scaled(q resource.Quantity, scale int32) string {
	d := q.AsDec()
	// value = unscaled * 10^-decScale; we want value * 10^-scale rounded away from zero.
	unscaled := new(big.Int).Set(d.UnscaledBig())
	shift := -int64(d.Scale()) - int64(scale)
	if shift > 40 || shift < -4000 {
		if unscaled.Sign() == 0 {
			return "0"
		}
		if shift > 40 {
			return "overflow"
		}
		if unscaled.Sign() < 0 {
			return "-1"
		}
		return "1"
	}
	ten := big.NewInt(10)
	if shift >= 0 {
		unscaled.Mul(unscaled, new(big.Int).Exp(ten, big.NewInt(shift), nil))
	} else {
		div := new(big.Int).Exp(ten, big.NewInt(-shift), nil)
		quo, rem := new(big.Int).QuoRem(unscaled, div, new(big.Int))
		if rem.Sign() > 0 {
			quo.Add(quo, big.NewInt(1))
		} else if rem.Sign() < 0 {
			quo.Sub(quo, big.NewInt(1))
		}
		unscaled = quo
	}
	if unscaled.Cmp(maxInt64) > 0 || unscaled.Cmp(minInt64) < 0 {
		return "overflow"
	}
	return strconv.FormatInt(unscaled.Int64(), 10)
}

func main() {
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 1<<20), 1<<20)
	out := bufio.NewWriter(os.Stdout)
	defer out.Flush()
	for in.Scan() {
		line := in.Text()
		q, err := resource.ParseQuantity(line)
		if err != nil {
			fmt.Fprintf(out, "%s\tERR\n", line)
			continue
		}
		fmt.Fprintf(out, "%s\tOK\t%s\t%s\t%s\t%s\n", line, q.String(), q.Format, scaled(q, 0), scaled(q, -3))
	}
}
