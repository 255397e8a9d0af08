import stringWidth from 'string-width';

/**
 * Rows as aligned columns under a header, two spaces apart; the last column is not padded. One line each.
 * Widths are what a terminal shows (string-width): a CJK character takes two columns, a combining accent or
 * a zero-width joiner none, an emoji two, so names such as `kundenübersicht` written decomposed still align.
 */
export function renderColumns(header: readonly string[], rows: readonly (readonly string[])[]): string {
  const widths = header.map((h, i) => {
    let width = stringWidth(h);
    for (const row of rows) width = Math.max(width, stringWidth(row[i]));
    return width;
  });
  const line = (cells: readonly string[]) => cells.map((c, i) => (i === cells.length - 1 ? c : padEndShown(c, widths[i]))).join('  ');
  return [line(header), ...rows.map(line)].join('\n') + '\n';
}

/** The columns a terminal gives the text (see renderColumns). */
export const shownWidth = (text: string): number => stringWidth(text);

/** padEnd by the width a terminal shows, not by UTF-16 code units. */
export function padEndShown(text: string, width: number): string {
  return text + ' '.repeat(Math.max(0, width - stringWidth(text)));
}
