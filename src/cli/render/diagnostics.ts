import { createColors } from 'picocolors';
import type { Diagnostic } from '../../model/index.js';

/**
 * Diagnostics in three forms: for people (file:line:col, a snippet with a caret), for programs
 * (`--format json`) and for GitHub workflow annotations (`--format github`).
 */
export interface DiagnosticsReport {
  valid: boolean;
  error_count: number;
  warning_count: number;
  diagnostics: Diagnostic[];
}

export function diagnosticsReport(diagnostics: Diagnostic[]): DiagnosticsReport {
  const error_count = diagnostics.filter((d) => d.severity === 'error').length;
  return { valid: error_count === 0, error_count, warning_count: diagnostics.length - error_count, diagnostics };
}

/** Findings whose source line holds a secret: the snippet shows the line only up to the end of the range. */
const SENSITIVE_SNIPPETS = new Set(['plaintext_secret']);

export function renderDiagnosticsText(diagnostics: Diagnostic[], texts: ReadonlyMap<string, string>, color = false): string {
  const colors = createColors(color);
  const out: string[] = [];
  // each file split into lines once, not once per diagnostic (a file with 50,000 duplicate keys)
  const linesOf = new Map<string, string[]>();
  for (const d of diagnostics) {
    const where = d.range ? `${d.range.filename}:${d.range.start.line}:${d.range.start.column}: ` : '';
    const severity = d.severity === 'error' ? colors.bold(colors.red('error')) : colors.bold(colors.yellow('warning'));
    out.push(`${where}${severity}[${d.code}]: ${d.summary}`);
    const text = d.range ? texts.get(d.range.filename) : undefined;
    if (d.range && text !== undefined && !(d.range.start.line === 1 && d.range.start.column === 1 && d.range.end.line === 1 && d.range.end.column === 1 && d.code !== 'yaml_syntax')) {
      let lines = linesOf.get(d.range.filename);
      if (!lines) linesOf.set(d.range.filename, (lines = text.split('\n')));
      let lineText = lines[d.range.start.line - 1]?.replace(/\r$/, '');
      if (lineText !== undefined && SENSITIVE_SNIPPETS.has(d.code)) {
        const keyEnd = d.range.end.line === d.range.start.line ? d.range.end.column - 1 : lineText.length;
        lineText = `${lineText.slice(0, keyEnd)}: (sensitive)`;
      }
      if (lineText !== undefined) {
        const gutter = String(d.range.start.line);
        const width =
          d.range.end.line === d.range.start.line ? Math.max(1, d.range.end.column - d.range.start.column) : Math.max(1, lineText.length - d.range.start.column + 1);
        out.push(`${' '.repeat(gutter.length)} |`);
        out.push(`${gutter} | ${lineText.replace(/\t/g, ' ')}`);
        out.push(`${' '.repeat(gutter.length)} | ${' '.repeat(d.range.start.column - 1)}${(d.severity === 'error' ? colors.red : colors.yellow)('^'.repeat(Math.min(width, 80)))}`);
      }
    }
    if (d.detail) out.push(`  = ${d.detail}`);
    out.push('');
  }
  const report = diagnosticsReport(diagnostics);
  out.push(
    report.valid
      ? `valid: ${report.warning_count} warning${report.warning_count === 1 ? '' : 's'}`
      : `invalid: ${report.error_count} error${report.error_count === 1 ? '' : 's'}, ${report.warning_count} warning${report.warning_count === 1 ? '' : 's'}`,
  );
  return out.join('\n') + '\n';
}

/**
 * `::error file=…,line=…,col=…,endLine=…,endColumn=…,title=…::message`, with GitHub's escaping. GitHub reads
 * `file` relative to the workspace: `pathPrefix` is where the user home lies in it (`dqops/` for a sub-folder).
 */
export function renderDiagnosticsGithub(diagnostics: Diagnostic[], pathPrefix = ''): string {
  const escapeData = (s: string) => s.replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A');
  const escapeProperty = (s: string) => escapeData(s).replace(/:/g, '%3A').replace(/,/g, '%2C');
  return diagnostics
    .map((d) => {
      const props: string[] = [];
      if (d.range) {
        props.push(`file=${escapeProperty(pathPrefix + d.range.filename)}`, `line=${d.range.start.line}`, `col=${d.range.start.column}`);
        props.push(`endLine=${d.range.end.line}`, `endColumn=${d.range.end.column}`);
      }
      props.push(`title=${escapeProperty(`dqctl ${d.code}`)}`);
      const message = d.detail ? `${d.summary}\n${d.detail}` : d.summary;
      return `::${d.severity} ${props.join(',')}::${escapeData(message)}`;
    })
    .join('\n')
    .concat(diagnostics.length > 0 ? '\n' : '');
}
