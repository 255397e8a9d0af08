import type { Command } from 'commander';

/**
 * Where each command is documented: its --help ends with "Reference: docs/<page>.md#<heading>" (the docs/ folder
 * of dqctl's package and repository). A test runs every --help and checks each link names a page and a heading
 * that exist, and that every command has one.
 */
const COMMANDS = 'docs/commands.md';
const CHECKS = 'docs/checks.md';
const RECONCILE = 'docs/reconcile.md';
const REMOTE = `${RECONCILE}#dqctl-planapply---server-url`;
const INCIDENTS_CLI = 'docs/incidents.md#the-cli-dqctl-incidents-and-dqctl-notifications';

export const DOCS_REFERENCES: Readonly<Record<string, readonly string[]>> = {
  validate: [`${COMMANDS}#dqctl-validate-dir`, 'docs/exit-codes.md#diagnostic-codes'],
  plan: [`${COMMANDS}#dqctl-plan-dir`, `${COMMANDS}#dqctl-plan---git-ref-ref-dir`, REMOTE],
  diff: [`${COMMANDS}#dqctl-diff---base-ref---head-ref-dir`],
  apply: [`${COMMANDS}#dqctl-apply-dir--planjson`, REMOTE],
  show: [`${COMMANDS}#dqctl-show-planjson`],
  'state list': [`${COMMANDS}#dqctl-state-list`],
  export: [`${COMMANDS}#dqctl-export`],
  'export dqops-data': ['docs/dqops-data.md'],
  serve: ['docs/serve.md#dqctl-serve', `${RECONCILE}#dqctl-serve---repo-dir----git-url-continuous-reconciliation`],
  demo: [`${COMMANDS}#dqctl-demo-dir`],
  status: [`${RECONCILE}#dqctl-status`],
  'lock list': [`${COMMANDS}#dqctl-lock-list-and-dqctl-lock-release-id`],
  'lock release': [`${COMMANDS}#dqctl-lock-list-and-dqctl-lock-release-id`],
  'import tables': [`${CHECKS}#dqctl-import-tables---connection-c`],
  'import dqops-data': ['docs/dqops-data.md'],
  'collect statistics': [`${CHECKS}#dqctl-collect-statistics`],
  'collect error-samples': [`${CHECKS}#dqctl-collect-error-samples`],
  'run checks': [`${CHECKS}#dqctl-run-checks`, 'docs/data-sources.md#secrets'],
  preview: [`${COMMANDS}#dqctl-preview---base-ref---head-ref-dir`],
  statistics: [`${CHECKS}#dqctl-statistics`],
  results: [`${CHECKS}#dqctl-results`],
  'incidents list': [INCIDENTS_CLI],
  'incidents acknowledge': [INCIDENTS_CLI],
  'incidents resolve': [INCIDENTS_CLI],
  'incidents mute': [INCIDENTS_CLI],
  'incidents reopen': [INCIDENTS_CLI],
  'notifications list': [INCIDENTS_CLI],
  history: [`${RECONCILE}#dqctl-history`],
};

/** Adds "Reference: …" to the --help of every command the table names. */
export function addDocsReferencesToHelp(program: Command): void {
  const visit = (command: Command, prefix: string) => {
    for (const sub of command.commands) {
      const name = prefix ? `${prefix} ${sub.name()}` : sub.name();
      const references = DOCS_REFERENCES[name];
      if (references) sub.addHelpText('after', `\n${references.length === 1 ? 'Reference' : 'References'}:\n${references.map((r) => `  ${r}`).join('\n')}`);
      visit(sub, name);
    }
  };
  visit(program, '');
}
