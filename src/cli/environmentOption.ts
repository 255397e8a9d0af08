import type { Command } from 'commander';
import { DqError } from '../model/index.js';

/**
 * `--env NAME`, one definition for every command that loads a repository (validate, plan, apply, diff, serve,
 * export, preview): the environment of dqctl.yaml (`spec.environments.NAME.vars`) whose values replace the
 * `${var.…}` references of the object files. A command takes it in one line, `environmentOption(command)`, and
 * hands `environmentOf(options)` to the loading (`loadRepository(…, { environment })`, `planRepository`).
 */
export interface EnvironmentFlags {
  env?: string;
}

export function environmentOption<C extends Command>(command: C): C {
  return command.option('--env <name>', 'the environment of dqctl.yaml (spec.environments.<name>.vars) whose values replace ${var.NAME} in the files') as C;
}

/** `--switch-env`, for the commands that apply (apply, serve --auto-apply). */
export interface SwitchEnvironmentFlags {
  switchEnv?: boolean;
}

export function switchEnvironmentOption<C extends Command>(command: C): C {
  return command.option(
    '--switch-env',
    'apply even though the live store was last applied with another --env (otherwise refused: a plan for staging must not silently overwrite prod)',
  ) as C;
}

/** The environment to load with: null without --env. */
export function environmentOf(options: EnvironmentFlags): string | null {
  return options.env ?? null;
}

/** A saved plan is applied with the environment it was made with; --env, when given, must name that one. */
export function refuseOtherEnvironment(saved: string | null, options: EnvironmentFlags): void {
  if (options.env === undefined || options.env === saved) return;
  throw new DqError(
    'INVALID_ARGUMENT',
    `the saved plan was made ${saved === null ? 'without --env' : `with --env ${saved}`}, not with --env ${options.env}; make a plan with --env ${options.env}`,
  );
}
