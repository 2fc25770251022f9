/** Writes to stdout, waiting for 'drain' when the pipe is full (backpressure). */
export function writeStdout(text: string): Promise<void> {
  if (text.length === 0) return Promise.resolve();
  return new Promise((resolve, reject) => {
    const ok = process.stdout.write(text, (err) => (err ? reject(err) : undefined));
    if (ok) resolve();
    else process.stdout.once('drain', resolve);
  });
}
