import { join } from 'node:path';
import { PACKAGE_ROOT, SCHEMAS_DIR } from '../catalog/packagePaths.js';

/**
 * The folders of the installed package that the server serves from: the API model schemas (schemas/api, beside
 * the file schemas the CLI validates with) and the built web console (dist/console). Found from the package
 * root, so the same code runs from src/ and from dist/.
 */
export const API_SCHEMAS_DIR = join(SCHEMAS_DIR, 'api');
export const CONSOLE_BUILD_DIR = join(PACKAGE_ROOT, 'dist', 'console');
/** The example repository the package ships (examples/shop), which `dqctl demo` applies when given no folder. */
export const EXAMPLE_REPOSITORY_DIR = join(PACKAGE_ROOT, 'examples', 'shop');
