import { afterEach, describe, expect, it } from 'vitest';
import { PythonRuleRunner, pythonRuleOptionsFromEnvironment } from '../../src/pythonrules/index.js';

const MIN_COUNT = `
class Result:
    def __init__(self, passed=None, expected_value=None, lower_bound=None, upper_bound=None):
        self.passed = passed
        self.expected_value = expected_value
        self.lower_bound = lower_bound
        self.upper_bound = upper_bound

def evaluate_rule(rule_parameters):
    if not hasattr(rule_parameters, 'actual_value'):
        return Result()
    low = rule_parameters.parameters.min_count
    return Result(rule_parameters.actual_value >= low, low, low, None)
`;

describe('PythonRuleRunner', () => {
  let runner: PythonRuleRunner | undefined;
  afterEach(async () => {
    await runner?.close();
  });

  it('calls evaluate_rule with attribute access, answers passed / bounds, and None as no verdict', async () => {
    runner = new PythonRuleRunner();
    const outcomes = await runner.evaluate({ name: 'custom/min_count', source: MIN_COUNT }, [
      { actual_value: 5, parameters: { min_count: 3 } },
      { actual_value: 2, parameters: { min_count: 3 } },
      { parameters: { min_count: 3 } },
    ]);
    expect(outcomes).toEqual([
      { result: { passed: true, expected_value: 3, lower_bound: 3 } },
      { result: { passed: false, expected_value: 3, lower_bound: 3 } },
      { result: { passed: null } },
    ]);
  });

  it('reuses its worker between calls and reloads a changed module', async () => {
    runner = new PythonRuleRunner({ workers: 1 });
    const first = await runner.evaluate({ name: 'custom/r', source: 'def evaluate_rule(p):\n    return {"passed": True, "expected_value": 1}\n' }, [{ parameters: {} }]);
    const again = await runner.evaluate({ name: 'custom/r', source: 'def evaluate_rule(p):\n    return {"passed": True, "expected_value": 1}\n' }, [{ parameters: {} }]);
    const changed = await runner.evaluate({ name: 'custom/r', source: 'def evaluate_rule(p):\n    return {"passed": False, "expected_value": 2}\n' }, [{ parameters: {} }]);
    expect(first).toEqual([{ result: { passed: true, expected_value: 1 } }]);
    expect(again).toEqual(first);
    expect(changed).toEqual([{ result: { passed: false, expected_value: 2 } }]);
    expect(runner.started).toBe(1);
  });

  it('turns a raise, a print to stderr or stdout and a nonsense answer into the error of that call only', async () => {
    runner = new PythonRuleRunner({ workers: 1 });
    const source = [
      'import sys',
      'def evaluate_rule(p):',
      '    kind = p.parameters.kind',
      '    if kind == "raise":',
      '        raise ValueError("bad threshold")',
      '    if kind == "stderr":',
      '        print("debugging", file=sys.stderr)',
      '    if kind == "stdout":',
      '        print("hello")',
      '    if kind == "nonsense":',
      '        return {"passed": "yes"}',
      '    if kind == "none":',
      '        return None',
      '    return {"passed": True}',
      '',
    ].join('\n');
    const outcomes = await runner.evaluate({ name: 'custom/misbehaving', source }, ['raise', 'stderr', 'stdout', 'nonsense', 'none', 'ok'].map((kind) => ({ parameters: { kind } })));
    expect(outcomes.map((o) => ('error' in o ? o.error.split('\n')[0] : o.result))).toEqual([
      'ValueError: bad threshold',
      'RuntimeError: the rule printed (a rule must not write to stdout or stderr): debugging',
      'RuntimeError: the rule printed (a rule must not write to stdout or stderr): hello',
      "ValueError: evaluate_rule returned passed='yes', which is neither True, False nor None",
      'ValueError: evaluate_rule returned None, not an object with passed, expected_value, lower_bound and upper_bound',
      { passed: true },
    ]);
    // the traceback points at the rule's own line
    expect('error' in outcomes[0] && outcomes[0].error).toContain('File "rules/custom/misbehaving.py", line 5, in evaluate_rule');
    expect(runner.started).toBe(1);
  });

  it('stops a rule that runs past the time limit, fails that request, and answers the next call on a new worker', async () => {
    runner = new PythonRuleRunner({ workers: 1, callTimeoutMs: 2000 });
    const started = Date.now();
    const hung = await runner.evaluate({ name: 'custom/hangs', source: 'import time\ndef evaluate_rule(p):\n    time.sleep(60)\n' }, [{ parameters: {} }, { parameters: {} }]);
    expect(Date.now() - started).toBeGreaterThanOrEqual(1900);
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(hung[0]).toEqual({ error: 'the rule did not answer within 2 s (DQCTL_RULE_TIMEOUT); its worker was stopped' });
    expect('error' in hung[1] && hung[1].error).toMatch(/^not run: an earlier call of this rule failed its worker/);
    const next = await runner.evaluate({ name: 'custom/ok', source: 'def evaluate_rule(p):\n    return {"passed": True}\n' }, [{ parameters: {} }]);
    expect(next).toEqual([{ result: { passed: true } }]);
    expect(runner.started).toBe(2);
  });

  it('fails every call of a module that does not load', async () => {
    runner = new PythonRuleRunner({ workers: 1 });
    const outcomes = await runner.evaluate({ name: 'custom/broken', source: 'def evaluate_rule(p)\n    return 1\n' }, [{ parameters: {} }, { parameters: {} }]);
    for (const outcome of outcomes) expect('error' in outcome && outcome.error).toMatch(/^cannot load rules\/custom\/broken\.py: [\s\S]*SyntaxError: expected ':'/);
  });

  it('names the interpreter it cannot start', async () => {
    runner = new PythonRuleRunner({ python: '/nonexistent/python3' });
    const [outcome] = await runner.evaluate({ name: 'custom/r', source: 'def evaluate_rule(p):\n    return {"passed": True}\n' }, [{ parameters: {} }]);
    expect('error' in outcome && outcome.error).toContain('cannot start the Python interpreter "/nonexistent/python3" (set DQCTL_PYTHON)');
  });

  it('puts a DQOps home on the module path (DQCTL_DQO_HOME) and reads the settings of the environment', async () => {
    const { mkdtempSync, mkdirSync, writeFileSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const { join } = await import('node:path');
    const home = mkdtempSync(join(tmpdir(), 'dqo-home-'));
    mkdirSync(join(home, 'lib'));
    writeFileSync(join(home, 'lib', '__init__.py'), '');
    writeFileSync(join(home, 'lib', 'helpers.py'), 'def doubled(x):\n    return 2 * x\n');
    const options = pythonRuleOptionsFromEnvironment({ DQCTL_DQO_HOME: home, DQCTL_RULE_TIMEOUT: '2s', DQCTL_PYTHON: 'python3' });
    expect(options).toEqual({ dqoHome: home, callTimeoutMs: 2000, python: 'python3' });
    runner = new PythonRuleRunner(options);
    const [outcome] = await runner.evaluate(
      { name: 'custom/uses_lib', source: 'from lib.helpers import doubled\ndef evaluate_rule(p):\n    return {"passed": True, "expected_value": doubled(p.actual_value)}\n' },
      [{ actual_value: 21, parameters: {} }],
    );
    expect(outcome).toEqual({ result: { passed: true, expected_value: 42 } });
    expect(() => pythonRuleOptionsFromEnvironment({ DQCTL_RULE_TIMEOUT: 'soon' })).toThrow(/DQCTL_RULE_TIMEOUT must be a duration/);
  });
});
