export { parseDuration } from '../model/duration.js';
