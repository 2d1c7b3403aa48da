/**
 * A bounded start queue for test scans: at most `width` tasks run at once, the rest wait their
 * turn. Each returned promise has a no-op catch attached, so one nobody awaits (a filtered test)
 * never surfaces as an unhandled rejection; whoever awaits it still sees the failure.
 */
export function limit(width: number): <T>(task: () => Promise<T>) => Promise<T> {
  let running = 0;
  const queue: (() => void)[] = [];
  return <T>(task: () => Promise<T>): Promise<T> => {
    const done = new Promise<T>((resolve, reject) => {
      const start = (): void => {
        running++;
        task()
          .then(resolve, reject)
          .finally(() => {
            running--;
            queue.shift()?.();
          });
      };
      if (running < width) start();
      else queue.push(start);
    });
    done.catch(() => undefined);
    return done;
  };
}
