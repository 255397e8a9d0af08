"""dqctl's worker for custom Python rules (one long-running process, reused for many calls).

Protocol: JSON lines. dqctl writes one request per line on stdin:
  {"id": 7, "rule": "myrules/my_rule", "version": "<sha256 of the source>", "source": "..." (when this worker
   has not loaded that version yet), "calls": [<rule_parameters>, ...]}
and the worker answers one line per call, in order, on its protocol stream (the original stdout):
  {"id": 7, "index": 0, "result": {"passed": true, "expected_value": 1.0, "lower_bound": null, ...}}
  {"id": 7, "index": 1, "error": "..."}
A request with "templates" renders custom sensors' SQL templates instead (render_templates): one answer per item,
{"id": 8, "index": 0, "result": {"sql": "..."}} or an error.
Each call's rule_parameters reach `evaluate_rule` as an object whose JSON objects are attributes
(`rule_parameters.parameters.min_count`), as DQOps gives them. Anything the rule prints to stdout or stderr makes
that call an error (the protocol stream is a private copy of stdout; writes to fd 1 from C code go to stderr).
"""
import io
import json
import linecache
import math
import os
import sys
import traceback
import types
import warnings
from contextlib import redirect_stderr, redirect_stdout

PROTOCOL = os.fdopen(os.dup(1), "w", encoding="utf-8", buffering=1)
os.dup2(2, 1)
sys.stdout = sys.stderr


class RuleArguments:
    """A JSON object seen as attributes, as DQOps's rule runner hands it to a rule."""

    def __init__(self, fields):
        self.__dict__.update(fields)

    def __repr__(self):
        return "RuleArguments(%r)" % (self.__dict__,)


def as_attributes(value):
    if isinstance(value, dict):
        return RuleArguments({key: as_attributes(item) for key, item in value.items()})
    if isinstance(value, list):
        return [as_attributes(item) for item in value]
    return value


class LoadedRule:
    def __init__(self, version, module):
        self.version = version
        self.module = module


loaded = {}


def load_rule(rule, version, source):
    known = loaded.get(rule)
    if known is not None and known.version == version:
        return known.module
    if source is None:
        raise RuntimeError("the source of rule %s (version %s) was not sent" % (rule, version))
    module_name = "dqctl_rules." + rule.replace("/", ".")
    module = types.ModuleType(module_name)
    module.__file__ = "rules/%s.py" % rule
    sys.modules[module_name] = module
    # the source in linecache: tracebacks show the rule's lines
    linecache.cache[module.__file__] = (len(source), None, source.splitlines(True), module.__file__)
    exec(compile(source, module.__file__, "exec"), module.__dict__)
    if not callable(getattr(module, "evaluate_rule", None)):
        raise RuntimeError("rules/%s.py has no function evaluate_rule(rule_parameters)" % rule)
    loaded[rule] = LoadedRule(version, module)
    return module


RESULT_NUMBERS = ("expected_value", "lower_bound", "upper_bound", "new_actual_value")


def plain(value):
    # numpy scalars (numpy.float64, numpy.bool_) answer .item() with the Python value
    item = getattr(value, "item", None)
    if callable(item) and not isinstance(value, (bool, int, float, str)):
        try:
            return item()
        except Exception:
            return value
    return value


def checked_result(result):
    if isinstance(result, dict):
        fields = result
    elif result is not None and hasattr(result, "__dict__"):
        fields = vars(result)
    else:
        raise ValueError("evaluate_rule returned %r, not an object with passed, expected_value, lower_bound and upper_bound" % (result,))
    out = {}
    passed = plain(fields.get("passed"))
    if passed is not None and not isinstance(passed, bool):
        raise ValueError("evaluate_rule returned passed=%r, which is neither True, False nor None" % (passed,))
    out["passed"] = passed
    for name in RESULT_NUMBERS:
        value = plain(fields.get(name))
        if value is None:
            continue
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise ValueError("evaluate_rule returned %s=%r, which is not a number" % (name, value))
        if not math.isfinite(value):
            raise ValueError("evaluate_rule returned %s=%r, which is not a finite number" % (name, value))
        out[name] = float(value)
    return out


def run_call(module, arguments):
    captured = io.StringIO()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with redirect_stdout(captured), redirect_stderr(captured):
            result = module.evaluate_rule(as_attributes(arguments))
    printed = captured.getvalue()
    if printed:
        raise RuntimeError("the rule printed (a rule must not write to stdout or stderr): " + printed[:2000])
    return checked_result(result)


def answer(message):
    PROTOCOL.write(json.dumps(message, allow_nan=False) + "\n")
    PROTOCOL.flush()


def describe(error):
    """The exception and the frames of the rule's own code (not this worker's)."""
    frames = [frame for frame in traceback.extract_tb(error.__traceback__) if frame.filename != __file__]
    text = "".join(traceback.format_exception_only(type(error), error)).strip()
    if frames:
        text += "\n" + "".join(traceback.format_list(frames)).rstrip()
    return text


_template_environments = {}


def render_templates(request):
    """Renders SQL templates of custom sensors with Jinja2, as DQOps renders them (ChainableUndefined, the
    default delimiters and whitespace settings). `templates` maps names to sources (the sensor's template and
    dqctl's dialect file under the name templates import, /dialects/postgresql.sql.jinja2); one environment per
    set of sources is kept, so a changed template is compiled again."""
    import hashlib
    import jinja2
    import jinja2.sandbox

    templates = request["templates"]
    key = hashlib.sha256(json.dumps(templates, sort_keys=True).encode("utf-8")).hexdigest()
    environment = _template_environments.get(key)
    if environment is None:
        loader = jinja2.DictLoader({**templates, **{name.lstrip("/"): text for name, text in templates.items()}})
        # sandboxed: a template reaches its variables and their public methods, not Python's internals
        environment = jinja2.sandbox.SandboxedEnvironment(loader=loader, undefined=jinja2.ChainableUndefined)
        if len(_template_environments) > 64:
            _template_environments.clear()
        _template_environments[key] = environment
    for index, item in enumerate(request["items"]):
        try:
            captured = io.StringIO()
            with redirect_stdout(captured), redirect_stderr(captured):
                sql = environment.get_template(item["template"]).render(**item["context"])
            answer({"id": request["id"], "index": index, "result": {"sql": sql}})
        except BaseException as error:
            if isinstance(error, KeyboardInterrupt):
                raise
            answer({"id": request["id"], "index": index, "error": describe(error)})


def main():
    for extra in sys.argv[1:]:
        if extra and extra not in sys.path:
            sys.path.append(extra)
    for line in sys.stdin:
        if not line.strip():
            continue
        request = json.loads(line)
        if "templates" in request:
            render_templates(request)
            continue
        calls = request.get("calls") or []
        try:
            module = load_rule(request["rule"], request["version"], request.get("source"))
        except BaseException as error:  # a module that fails to load fails every call of the request
            text = "cannot load rules/%s.py: %s" % (request.get("rule"), describe(error))
            for index in range(len(calls)):
                answer({"id": request["id"], "index": index, "error": text})
            continue
        for index, arguments in enumerate(calls):
            try:
                answer({"id": request["id"], "index": index, "result": run_call(module, arguments)})
            except BaseException as error:
                if isinstance(error, KeyboardInterrupt):
                    raise
                answer({"id": request["id"], "index": index, "error": describe(error)})


if __name__ == "__main__":
    main()
