/**
 * Stable, diff-friendly JSON for the committed schema files: one key per line, except that small objects and
 * arrays stay on one line, which keeps the generated files short enough to read and review.
 */
const INLINE_WIDTH = 110;

export function formatSchemaJson(value: unknown): string {
  return `${format(value, '')}\n`;
}

function format(value: unknown, indent: string): string {
  if (typeof value !== 'object' || value === null) return JSON.stringify(value);
  const oneLine = inline(value);
  if (oneLine.length + indent.length <= INLINE_WIDTH) return oneLine;
  const inner = `${indent}  `;
  if (Array.isArray(value)) return `[\n${value.map((item) => inner + format(item, inner)).join(',\n')}\n${indent}]`;
  const entries = Object.entries(value).map(([key, item]) => `${inner}${JSON.stringify(key)}: ${format(item, inner)}`);
  return `{\n${entries.join(',\n')}\n${indent}}`;
}

function inline(value: unknown): string {
  if (typeof value !== 'object' || value === null) return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map(inline).join(', ')}]`;
  const entries = Object.entries(value).map(([key, item]) => `${JSON.stringify(key)}: ${inline(item)}`);
  return entries.length === 0 ? '{}' : `{ ${entries.join(', ')} }`;
}
