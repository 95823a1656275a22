"""What this machine has of the files the generator reads (fonts, prose), or pin its own set of them.

    /usr/bin/python3 synth_inputs.py          # pinned, found, missing and a digest per kind
    /usr/bin/python3 synth_inputs.py --pin    # rewrite saccade/synth/pinned/ from this machine
    /usr/bin/python3 synth_inputs.py --pin prose-de words-de   # only those kinds

Pinning changes what every seed generates: do it on purpose, and say so in the next run's notes.
"""
import argparse
import json

from saccade.synth import inputs


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--pin", nargs="*", choices=inputs.KINDS, metavar="KIND",
                   help="rewrite the pinned lists of these kinds (none named: all) from this machine")
    kinds = p.parse_args().pin
    if kinds is not None:
        inputs.pin(tuple(kinds) or inputs.KINDS)
    print(json.dumps(inputs.report(), indent=2))


if __name__ == "__main__":
    main()
