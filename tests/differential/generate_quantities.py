#!/usr/bin/env python3
"""Prints random quantity strings, one per line, for the differential test.

Deterministic for a given seed. The strings mix valid and invalid shapes, but stay inside the
region where apimachinery v0.36 is sound (docs/quantities.md lists where it is not): every number
has a digit, exponents stay within ±300, and decimal-SI values stay below 10^21.
"""
import random
import sys

SUFFIXES = ["", "n", "u", "m", "k", "M", "G", "T", "P", "E",
            "Ki", "Mi", "Gi", "Ti", "Pi", "Ei"]
NOISE = ["K", "mi", "i", "e", "E", "+", "-", ".", " ", "x", "kk", "Mb"]


def digits(rng, lo, hi):
    return "".join(rng.choice("0123456789") for _ in range(rng.randint(lo, hi)))


def quantity(rng):
    sign = rng.choice(["", "", "", "-", "+"])
    shape = rng.random()
    if shape < 0.45:  # decimal or binary SI suffix, small enough to stay below 10^21
        number = digits(rng, 1, 3)
        if rng.random() < 0.5:
            number += "." + digits(rng, 0, 12)
        return sign + number + rng.choice(SUFFIXES)
    if shape < 0.75:  # exponent forms, long mantissas
        number = digits(rng, 1, 25)
        if rng.random() < 0.5:
            number += "." + digits(rng, 0, 25)
        exp = rng.randint(-300, 300)
        plus = "+" if exp >= 0 and rng.random() < 0.3 else ""
        return sign + number + rng.choice("eE") + plus + str(exp)
    if shape < 0.9:  # plain numbers, possibly past int64
        number = digits(rng, 1, 22)
        if rng.random() < 0.3:
            number = "." + number
        return sign + number
    # noise: a valid-looking start with something wrong appended or inserted
    base = digits(rng, 1, 4) + rng.choice(SUFFIXES)
    noise = rng.choice(NOISE)
    at = rng.randint(1, len(base))
    return sign + base[:at] + noise + base[at:]


def main():
    seed = int(sys.argv[1]) if len(sys.argv) > 1 else 1
    count = int(sys.argv[2]) if len(sys.argv) > 2 else 20000
    rng = random.Random(seed)
    for _ in range(count):
        print(quantity(rng))


if __name__ == "__main__":
    main()
