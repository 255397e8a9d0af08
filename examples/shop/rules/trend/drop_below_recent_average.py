# Custom rule "trend/drop_below_recent_average": compares today's readout with the mean of the previous
# readouts in the time window and fails on a drop larger than max_drop_percent. Increases always pass.
# Written for the dqctl shop example.
from dataclasses import dataclass
from typing import Optional


@dataclass
class DropResult:
    passed: bool
    expected_value: Optional[float] = None
    lower_bound: Optional[float] = None
    upper_bound: Optional[float] = None


def _history(rule_parameters) -> list:
    config = getattr(rule_parameters, "configuration_parameters", None) or {}
    skip_zero = str(config.get("ignore_zero_readouts", "true")).lower() == "true" if isinstance(config, dict) else True
    values = []
    for point in getattr(rule_parameters, "previous_readouts", None) or []:
        readout = getattr(point, "sensor_readout", None) if point is not None else None
        if readout is None or (skip_zero and readout == 0):
            continue
        values.append(float(readout))
    return values


def evaluate_rule(rule_parameters) -> DropResult:
    value = getattr(rule_parameters, "actual_value", None)
    if value is None:
        return DropResult(passed=True)
    history = _history(rule_parameters)
    if not history:
        return DropResult(passed=True, expected_value=value)

    average = sum(history) / len(history)
    max_drop = float(getattr(getattr(rule_parameters, "parameters", None), "max_drop_percent", 0.0) or 0.0)
    lowest_allowed = average * (1.0 - max_drop / 100.0)
    return DropResult(value >= lowest_allowed, average, lowest_allowed, None)
