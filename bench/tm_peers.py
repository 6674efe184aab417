#!/usr/bin/env python3
"""One training run of a Python Tsetlin Machine library, measured the way `arena bench tm`
measures tmbot, printed as one JSON line.

Usage (normally started by `arena bench tm --peers PYTHON`, one process per run):
    tm_peers.py --lib LIB --train TRAIN.csv --test TEST.csv --clauses N --T T --s S \
        --epochs E [--state-bits B] [--seed K] [--jobs J] [--weighted]

LIB: pytm (pyTsetlinMachine, indexed), tmu (TMU's per-class classifier), tmu_co (TMU's
coalesced classifier), gt (green-tsetlin, coalesced, J jobs). pytm and tmu train N clauses
per class; tmu_co and gt share N clauses among the classes.

Data: 0/1 feature columns, the class in the last column, no header (one is skipped).

Figures, per epoch: wall seconds (time.perf_counter), CPU seconds of the whole process
(time.process_time: every thread) and the test accuracy (measured outside the timing).
Memory: the growth of the resident set from the moment the data is loaded (the memory the
loading freed handed back to the system first, the peak counter reset through
/proc/self/clear_refs) to the end of training, so the loader's own memory is not counted
and a library cannot hide its memory in the loader's freed heap. green-tsetlin runs all its
epochs in one call: its CPU seconds are the total divided evenly over the epochs
("cpu_split": true).

Set-up once, in any folder outside the project:
    python3 -m venv /tmp/tm-peers && /tmp/tm-peers/bin/pip install \
        pyTsetlinMachine==0.6.6 tmu==0.8.3 green-tsetlin==1.1.0 "numpy<2" "pandas<3"
"""
import argparse
import ctypes
import json
import time

import numpy as np


def read(path):
    with open(path) as f:
        # A first line that does not start with a number is a header: read on past it.
        if f.readline().split(",")[0].strip().lstrip("-").isdigit():
            f.seek(0)
        a = np.loadtxt(f, delimiter=",", dtype=np.uint32, ndmin=2)
    return np.ascontiguousarray(a[:, :-1]), np.ascontiguousarray(a[:, -1])


def release_freed_memory():
    """Hands the memory freed while loading back to the system (glibc keeps freed heap
    resident, and a library allocating into it would show no growth)."""
    try:
        ctypes.CDLL("libc.so.6").malloc_trim(0)
    except (OSError, AttributeError):
        pass


def status_mb(key):
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith(key + ":"):
                return int(line.split()[1]) / 1024.0
    return float("nan")


def reset_peak():
    try:
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")
        return True
    except OSError:
        return False


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--lib", required=True, choices=["pytm", "tmu", "tmu_co", "gt"])
    p.add_argument("--train", required=True)
    p.add_argument("--test", required=True)
    p.add_argument("--clauses", type=int, required=True)
    p.add_argument("--T", type=int, required=True)
    p.add_argument("--s", type=float, required=True)
    p.add_argument("--epochs", type=int, default=2)
    p.add_argument("--state-bits", type=int, default=8)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--jobs", type=int, default=1)
    p.add_argument("--weighted", action="store_true")
    a = p.parse_args()

    x_train, y_train = read(a.train)
    x_test, y_test = read(a.test)
    classes = int(max(y_train.max(), y_test.max())) + 1
    out = dict(lib=a.lib, jobs=a.jobs, epoch_wall=[], epoch_cpu=[], test_accuracy=[])
    # Import before measuring: a library's own start-up is not training.
    if a.lib == "pytm":
        from pyTsetlinMachine.tm import MultiClassTsetlinMachine
    elif a.lib == "tmu":
        from tmu.models.classification.vanilla_classifier import TMClassifier
    elif a.lib == "tmu_co":
        from tmu.models.classification.coalesced_classifier import TMCoalescedClassifier
    else:
        import green_tsetlin as gt
    release_freed_memory()
    loaded = status_mb("VmRSS")
    out["peak_reset"] = reset_peak()

    def timed(step):
        wall, cpu = time.perf_counter(), time.process_time()
        step()
        out["epoch_wall"].append(time.perf_counter() - wall)
        out["epoch_cpu"].append(time.process_time() - cpu)

    if a.lib == "gt":
        tm = gt.TsetlinMachine(n_literals=x_train.shape[1], n_clauses=a.clauses, n_classes=classes,
                               s=a.s, threshold=a.T, literal_budget=None, boost_true_positives=True)
        trainer = gt.Trainer(tm, seed=a.seed, n_jobs=a.jobs, n_epochs=a.epochs, progress_bar=False,
                             load_best_state=False)
        trainer.set_train_data(x_train.astype(np.uint8), y_train)
        trainer.set_eval_data(x_test.astype(np.uint8), y_test)
        cpu = time.process_time()
        result = trainer.train()
        cpu = time.process_time() - cpu
        out["epoch_wall"] = [float(v) for v in result["train_time_of_epochs"]]
        out["epoch_cpu"] = [cpu / a.epochs] * a.epochs
        out["cpu_split"] = True
        out["test_accuracy"] = [float(v) for v in result["eval_log"]]
    else:
        if a.lib == "pytm":
            tm = MultiClassTsetlinMachine(a.clauses, a.T, a.s, boost_true_positive_feedback=1,
                                          number_of_state_bits=a.state_bits, indexed=True,
                                          weighted_clauses=a.weighted)
            fit = lambda: tm.fit(x_train, y_train, epochs=1, incremental=True)
        elif a.lib == "tmu":
            tm = TMClassifier(a.clauses, a.T, a.s, platform="CPU", boost_true_positive_feedback=1,
                              number_of_state_bits_ta=a.state_bits, weighted_clauses=a.weighted,
                              seed=a.seed)
            fit = lambda: tm.fit(x_train, y_train)
        else:
            tm = TMCoalescedClassifier(a.clauses, a.T, a.s, platform="CPU",
                                       boost_true_positive_feedback=1,
                                       number_of_state_bits_ta=a.state_bits,
                                       focused_negative_sampling=True, seed=a.seed)
            fit = lambda: tm.fit(x_train, y_train)
        for _ in range(a.epochs):
            timed(fit)
            out["test_accuracy"].append(float((tm.predict(x_test) == y_test).mean()))
    out["growth_mb"] = status_mb("VmHWM") - loaded
    # What could not be measured is null (JSON has no NaN).
    clean = lambda v: [clean(x) for x in v] if isinstance(v, list) else (None if v != v else v)
    print(json.dumps({k: clean(v) for k, v in out.items()}), flush=True)


if __name__ == "__main__":
    main()
