# Custom rule "volume/order_volume_band": the sensor readout must lie inside [lower_bound, upper_bound].
# On weekend days the lower bound is relaxed by weekend_factor. Written for the dqctl shop example.
from dataclasses import dataclass
from datetime import datetime
from typing import Optional


@dataclass
class BandResult:
    passed: bool
    expected_value: Optional[float] = None
    lower_bound: Optional[float] = None
    upper_bound: Optional[float] = None


def _weekend_days(rule_parameters) -> set:
    config = getattr(rule_parameters, "configuration_parameters", None) or {}
    raw = config.get("weekend_days", "5,6") if isinstance(config, dict) else "5,6"
    return {int(day) for day in str(raw).split(",") if day.strip()}


def evaluate_rule(rule_parameters) -> BandResult:
    value = getattr(rule_parameters, "actual_value", None)
    settings = getattr(rule_parameters, "parameters", None)
    low = getattr(settings, "lower_bound", None)
    high = getattr(settings, "upper_bound", None)
    if value is None:
        return BandResult(passed=True)

    period = getattr(rule_parameters, "time_period_local", None)
    if low is not None and isinstance(period, datetime) and period.weekday() in _weekend_days(rule_parameters):
        low = low * float(getattr(settings, "weekend_factor", 1.0) or 1.0)

    too_low = low is not None and value < low
    too_high = high is not None and value > high
    expected = value if not (too_low or too_high) else (low if too_low else high)
    return BandResult(not (too_low or too_high), expected, low, high)
