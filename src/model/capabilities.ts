/** What a caller may do, as the capability flags DQOps's API models carry (from the caller's role). */
export interface Capabilities {
  can_edit: boolean;
  can_run_checks: boolean;
  can_collect_statistics: boolean;
  can_delete_data: boolean;
}

/** The flags a check model carries (DQOps's CheckModel has no statistics flag). */
export type CheckCapabilities = Omit<Capabilities, 'can_collect_statistics'>;
