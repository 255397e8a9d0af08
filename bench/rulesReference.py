"""
Runs DQOps's own Python rules on the cases that bench/rulesAgreement.ts generates, as DQOps's engine would call
them, and prints one JSON answer per case. Contains no DQOps code: it loads the rule files from a DQOps home
folder given on the command line (extracted from the dqops/dqo repository at run time) and models only how
DQOps's Java engine builds a rule's input:

- previous_readouts for a calendar window: an array of prediction_time_window slots, oldest first, slot
  `window - k` holding the readout k periods before the current one, None where a period has no readout; the
  rule is not called (no verdict) when fewer slots than min_periods_with_readouts hold a readout;
- for last_n_readouts: the last N readouts before the current one at the end of an N-slot array;
- parameters, actual_value and expected_value (the reference) are left out when null (hasattr is false);
- configuration_parameters: the rule definition's `parameters` (degrees_of_freedom, ...).

Input on stdin: {"home": dir, "cases": [{"rule", "actual", "params", "reference", "history": [[daysBefore, value]],
"window": {"size", "min", "grouping"}, "config": {...}}]}. Output: one JSON list of
{"passed", "expected", "lower", "upper", "window_mean"} or {"error": message}.
"""
import importlib.util
import json
import math
import sys
import types
import warnings


def namespace(values):
    ns = types.SimpleNamespace()
    for key, value in values.items():
        if value is not None:
            setattr(ns, key, value)
    return ns


def previous_readouts(history, window):
    size = window["size"]
    if window["grouping"] == "last_n_readouts":
        ordered = sorted(history, key=lambda point: -point[0])  # oldest first
        picked = ordered[-size:] if size > 0 else []
        slots = [None] * (size - len(picked)) + [namespace({"sensor_readout": value, "local_datetime_epoch": -86400 * days})
                                                    for days, value in picked]
        return slots, True
    slots = [None] * size
    for days_before, value in history:
        if 1 <= days_before <= size:
            slots[size - days_before] = namespace({"sensor_readout": value, "back_periods_index": -days_before,
                                                   "local_datetime_epoch": -86400 * days_before})
    filled = sum(1 for slot in slots if slot is not None)
    return slots, filled >= window["min"]


def load_rule(home, name, cache={}):
    if name not in cache:
        path = f"{home}/rules/{name}.py"
        spec = importlib.util.spec_from_file_location("rules." + name.replace("/", "."), path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        cache[name] = module
    return cache[name]


def number(value):
    if value is None:
        return None
    value = float(value)
    return None if math.isnan(value) else value


def main():
    warnings.filterwarnings("ignore")
    request = json.load(sys.stdin)
    home = request["home"]
    sys.path.insert(0, home)
    answers = []
    for case in request["cases"]:
        rule = load_rule(home, case["rule"])
        parameters = types.SimpleNamespace(
            actual_value=case["actual"],
            parameters=namespace(case["params"]),
            time_window=namespace({"prediction_time_window": case["window"]["size"],
                                   "min_periods_with_readouts": case["window"]["min"]}),
            configuration_parameters=namespace(case.get("config") or {}),
            data_group="all data",
        )
        if case["actual"] is None:
            del parameters.actual_value
        if case.get("reference") is not None:
            parameters.expected_value = case["reference"]
        slots, called = previous_readouts(case["history"], case["window"])
        parameters.previous_readouts = slots
        present = [slot.sensor_readout for slot in slots if slot is not None]
        window_mean = sum(present) / len(present) if present else None
        if not called:
            answers.append({"passed": None, "expected": None, "lower": None, "upper": None, "window_mean": window_mean})
            continue
        try:
            result = rule.evaluate_rule(parameters)
            answers.append({
                "passed": None if result.passed is None else bool(result.passed),
                "expected": number(getattr(result, "expected_value", None)),
                "lower": number(getattr(result, "lower_bound", None)),
                "upper": number(getattr(result, "upper_bound", None)),
                "window_mean": window_mean,
            })
        except Exception as error:  # DQOps's rule raised: recorded, judged as DQOps's defect
            answers.append({"error": f"{type(error).__name__}: {error}"})
    json.dump(answers, sys.stdout)


main()
