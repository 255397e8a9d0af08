import { createTwoFilesPatch } from 'diff';
import type { FileChange } from '../../app/writeExport.js';

/**
 * `dqctl export --dry-run`: every file the export would write, as one unified diff (the `diff` package), in the
 * `a/` `b/` form git uses, so it reads like `git diff` and applies with `git apply` / `patch -p1`. A new file is
 * a diff from /dev/null.
 */
export function renderExportDiff(changes: readonly FileChange[]): string {
  return changes
    .map((change) =>
      createTwoFilesPatch(change.before === null ? '/dev/null' : `a/${change.path}`, `b/${change.path}`, change.before ?? '', change.after, undefined, undefined, {
        context: 3,
      })
        // the package's header line of `=` is not part of git's format
        .replace(/^=+\n/m, ''),
    )
    .join('');
}
