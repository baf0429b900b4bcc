import { readFileSync, statSync } from 'node:fs';
import { isAbsolute, relative, resolve } from 'node:path';
import { globSync, isDynamicPattern } from 'tinyglobby';
import { InputError } from './errors.js';

/** A file read for a command, named as the user sees it. */
export interface SourceFile {
  /** The path as printed: relative to the working directory (absolute when outside it). */
  readonly name: string;
  readonly text: string;
}

/**
 * The files one command-line path names, sorted: the file itself; for a directory, the files below
 * it whose names end with one of `extensions` (`node_modules` left out); for a glob (tinyglobby's
 * syntax: `*`, `**`, `{a,b}`), the files it matches. A path that exists is read as a path even if
 * it holds glob characters.
 *
 * @throws {InputError} when a path names nothing, or a glob or directory holds no such file.
 */
export function filesOf(path: string, cwd: string, extensions: readonly string[], what: string): string[] {
  const absolute = resolve(cwd, path);
  const kind = kindOf(absolute);
  if (kind === 'file') return [absolute];
  if (kind === undefined && !isDynamicPattern(path)) {
    throw new InputError([`${path}: no such file or directory (${what}).`]);
  }
  const names = extensions.length === 1 ? `*${extensions[0]}` : `*{${extensions.join(',')}}`;
  const found = globSync(kind === 'directory' ? `**/${names}` : path, {
    cwd: kind === 'directory' ? absolute : cwd,
    absolute: true,
    ignore: ['**/node_modules/**'],
    expandDirectories: false,
  });
  if (found.length === 0) {
    const holds = kind === 'directory' ? `holds no ${extensions.join(' or ')} file` : 'matches no file';
    throw new InputError([`${path}: ${holds} (${what}).`]);
  }
  return found.sort();
}

/** Reads a file as UTF-8, named relative to `cwd`. @throws {InputError} naming the file when it cannot. */
export function readSource(absolute: string, cwd: string): SourceFile {
  const name = displayName(absolute, cwd);
  try {
    return { name, text: readFileSync(absolute, 'utf8') };
  } catch (error) {
    throw new InputError([`${name}: cannot be read (${(error as NodeJS.ErrnoException).code ?? String(error)}).`]);
  }
}

/** The path relative to `cwd`, or absolute when it lies outside. */
export function displayName(absolute: string, cwd: string): string {
  const shown = relative(cwd, absolute);
  return shown.startsWith('..') || isAbsolute(shown) ? absolute : shown;
}

/**
 * Parses a JSON file's text. @throws {InputError} naming the file, and the line and column of a
 * syntax error where the runtime's message gives its position.
 */
export function parseJson(source: SourceFile): unknown {
  try {
    return JSON.parse(source.text);
  } catch (error) {
    // "Unexpected token '}', "{ "x": }" is not valid JSON" (Node 20), "… at position 8", "… (line 2 column 8)".
    const message = (error as Error).message;
    const reason = message
      .replace(/, ".*" is not valid JSON$/s, '')
      .replace(/ in JSON at position \d+.*$|\s*\(line \d+ column \d+\)$/s, '');
    const lineColumn = /line (\d+) column (\d+)/.exec(message);
    const position = /at position (\d+)/.exec(message);
    let where = source.name;
    if (lineColumn !== null) where += `:${lineColumn[1]}:${lineColumn[2]}`;
    else if (position !== null) {
      const before = source.text.slice(0, Number(position[1]));
      where += `:${before.split('\n').length}:${before.length - before.lastIndexOf('\n')}`;
    }
    throw new InputError([`${where}: not valid JSON (${reason}).`]);
  }
}

function kindOf(path: string): 'file' | 'directory' | undefined {
  try {
    const stat = statSync(path);
    return stat.isDirectory() ? 'directory' : 'file';
  } catch {
    return undefined;
  }
}
