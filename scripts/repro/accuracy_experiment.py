"""The experiment of a table that one section of build/bench/flaccuracy measures (tables 9-12:
bench/accuracy_*.c, public API only): its options in each mode, and the run that writes its
JSON to data/."""


def flaccuracy_section(key, section, data, **modes):
    """(SETTINGS, experiment) of a table measured by `flaccuracy --sections section`: its
    options in each mode (quick=, full=, tiny=, one string each) under `key` in the run's
    settings, its JSON written to data/`data`."""
    def experiment(r):
        r.accuracy(data[:-len(".json")], section, r.cfg[key])
    return {mode: {key: args.split()} for mode, args in modes.items()}, experiment
