/**
 * Where a repository's files come from. The loader only sees this interface, so a folder today and a
 * git ref later (issue: plan --git-ref) read the same way. Paths are repository-relative with '/'.
 */
export interface RepositoryFile {
  path: string;
  /** Size in bytes, checked against the limit before reading. */
  size: number;
  /**
   * Identifies the content without reading it, when the source can tell (a folder: size, mtime, ctime and
   * inode). A loader that kept what it parsed from this path may reuse it while the version is the same.
   */
  version?: string;
}

export interface RepositoryProblem {
  path: string;
  code: 'symlink_outside_repository' | 'symlink_loop' | 'file_too_large' | 'unreadable_file';
  summary: string;
}

export interface RepositorySource {
  /** For messages: the folder path or `git:<ref>`. */
  readonly description: string;
  /** The commit the files belong to, when known (HEAD of the folder's git repository). */
  commit(): Promise<string | null>;
  /**
   * The files under the repository folder that differ from that commit (modified, added, deleted, untracked),
   * as `git status` names them; null when clean or not a git work tree. Absent: a source read from a commit
   * (a git ref) is never dirty.
   */
  dirtyFiles?(): Promise<string[] | null>;
  /**
   * Every file under the folders dqctl reads, plus the problems met while listing them. `onFile`, when the source
   * lists as it walks (a folder), is told of each file as it is found, before the listing ends (a load that
   * starts its parse workers once it knows there are many files to parse).
   */
  listFiles(options?: { onFile?: (path: string) => void }): Promise<{ files: RepositoryFile[]; problems: RepositoryProblem[] }>;
  readFile(path: string): Promise<string>;
  /**
   * readFile, synchronously, when the source can (a folder): for a spec a getter must compute again from its file
   * (loadRepository's lazy specs), so that the objects of a plan need not hold every file's text until the apply.
   */
  readFileSync?(path: string): string;
  /**
   * listFiles and the text of every listed file in one pass, when the source does that cheaper than listing then
   * reading (a folder: no lstat per file, see DirectorySource). Same listing as listFiles; `each` gets every text
   * read (a file that cannot be read is listed without one); `listed` the number of files before the reads.
   */
  readEveryFile?(
    each: (path: string, text: string) => void,
    options: { listed?: (files: number) => void },
  ): Promise<{ files: RepositoryFile[]; problems: RepositoryProblem[] }>;
  /** The sha256 of the text `readFile(path)` gives, when the source hashed it already (repositoryInputs.ts). */
  contentSha?(path: string): string | undefined;
}

/** Files larger than this are refused: no configuration file is that big, and parsing one would stall. */
export const MAX_FILE_BYTES = 10 * 1024 * 1024;

/** Top-level entries of a DQOps user home that dqctl reads; everything else (.data, .credentials, …) is ignored. */
export const READ_ROOTS = ['sources', 'rules', 'sensors', 'checks', 'dictionaries', 'patterns', 'settings'] as const;
export const SETTINGS_FILE = 'dqctl.yaml';
