/**
 * A job as DQOps's job history shows it: its parameters nested under its kind (jobEntryParameters), for the
 * jobs routes of the server.
 */
export { jobEntryParameters } from '../jobs/jobEntryParameters.js';
