"""Argument types shared by the `vora` commands (argparse `type=` functions)."""

import argparse


def non_negative_int(text):
    try:
        n = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError("%r is not a whole number" % text)
    if n < 0:
        raise argparse.ArgumentTypeError("%d is negative" % n)
    return n


def positive_int(text):
    n = non_negative_int(text)
    if n == 0:
        raise argparse.ArgumentTypeError("must be at least 1")
    return n


def seconds(text):
    try:
        x = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError("%r is not a number of seconds" % text)
    if not 0 <= x <= 60:
        raise argparse.ArgumentTypeError("the delay must be between 0 and 60 seconds")
    return x
