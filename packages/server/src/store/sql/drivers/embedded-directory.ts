import { accessSync, chmodSync, constants, existsSync, lstatSync, mkdirSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

/** Owner-only modes of an embedded store's files (PostgreSQL's own: `PGDATA` 0700, files 0600). */
const DIR_MODE = 0o700;
const FILE_MODE = 0o600;

function problem(error: unknown): string {
  const { code, message } = error as NodeJS.ErrnoException;
  return code ?? message ?? String(error);
}

/**
 * Makes `dir` ready to hold an embedded store: created owner-only (0700) when missing; else it
 * must be a directory this process can read, write and enter. Throws with what is wrong and how
 * to fix it (never a bare errno).
 */
export function prepareDataDir(dir: string): void {
  if (existsSync(dir) && !statSync(dir).isDirectory()) throw new Error('it exists and is not a directory: pass a directory (or a path that does not exist yet).');
  try {
    mkdirSync(dir, { recursive: true, mode: DIR_MODE });
  } catch (error) {
    throw new Error(`cannot create the directory (${problem(error)}): check that its parent exists, is a directory and is writable by this user (uid ${process.getuid?.() ?? '?'}).`, { cause: error });
  }
  try {
    accessSync(dir, constants.R_OK | constants.W_OK | constants.X_OK);
  } catch (error) {
    throw new Error(
      `the directory is not readable and writable by this user (uid ${process.getuid?.() ?? '?'}; ${problem(error)}): run the server as its owner, or give it the directory (chown -R, chmod 700).`,
      { cause: error },
    );
  }
}

/**
 * Takes every group and other permission off `dir` and what is beneath it (directories 0700,
 * files 0600). PGlite unpacks its initial database with mode 0666 whatever the umask; files the
 * database creates later are 0600 already, so this runs once per open (cheap: a stat per file,
 * a chmod only where a mode is wider).
 */
export function restrictDataDir(dir: string): void {
  const visit = (path: string, isDir: boolean) => {
    const mode = lstatSync(path).mode & 0o777;
    const wanted = isDir ? DIR_MODE : FILE_MODE;
    if ((mode & 0o077) !== 0) chmodSync(path, mode & wanted);
    if (!isDir) return;
    for (const entry of readdirSync(path, { withFileTypes: true })) {
      if (entry.isDirectory()) visit(join(path, entry.name), true);
      else if (entry.isFile()) visit(join(path, entry.name), false);
    }
  };
  visit(dir, true);
}
