"""
Renders DQOps's own PostgreSQL sensor templates for the cases that bench/sensorsAgreement.ts builds, the way
DQOps's template runner does, and prints the SQL text of each. Contains no DQOps code: it loads the Jinja2 files
(the sensors and the dialect macros) from a DQOps home folder extracted from the dqops/dqo repository at run time.
What it models of DQOps is only how the template runner renders: a Jinja2 Environment over the home's `sensors`
folder, `ChainableUndefined` for missing values, the template rendered with the context's keys as variables.

Input on stdin: {"home": dir, "cases": [{"template": "column/nulls/null_count/postgresql.sql.jinja2",
"context": {...}}]}. Output: one JSON list of {"sql": text} or {"error": message}.
"""
import json
import sys

from jinja2 import ChainableUndefined, Environment, FileSystemLoader


def main():
    request = json.load(sys.stdin)
    environment = Environment(loader=FileSystemLoader(request["home"] + "/sensors"), undefined=ChainableUndefined)
    answers = []
    for case in request["cases"]:
        try:
            answers.append({"sql": environment.get_template(case["template"]).render(**case["context"])})
        except Exception as error:  # a template that cannot render is DQOps's failure on that case
            answers.append({"error": f"{type(error).__name__}: {error}"})
    json.dump(answers, sys.stdout)


main()
