/** Thrown for bad command-line usage; the CLI prints it and exits with status 2 (contract §1). */
export class UsageError extends Error {
  readonly code = 'USAGE';
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}
