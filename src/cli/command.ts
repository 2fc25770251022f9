/** One `adsnap` command: what `adsnap --help` lists, and what runs it (the exit status it returns). */
export interface Command {
  summary: string;
  usage: string;
  run(argv: string[]): Promise<number>;
}
