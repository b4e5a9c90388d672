/** Keeps cookies per origin the way a browser would for the doctor's simple sign-in and consent flow. */
export class CookieJar {
  private readonly jars = new Map<string, Map<string, string>>();

  /** Stores (or deletes, when expired) the cookies a response sets. */
  store(url: string, res: Response): void {
    const jar = this.jars.get(new URL(url).origin) ?? new Map<string, string>();
    for (const line of res.headers.getSetCookie()) {
      const [pair = ''] = line.split(';');
      const eq = pair.indexOf('=');
      if (eq <= 0) continue;
      const name = pair.slice(0, eq).trim();
      const value = pair.slice(eq + 1).trim();
      if (/;\s*max-age=0\b/i.test(line) || /expires=Thu, 01 Jan 1970/i.test(line)) jar.delete(name);
      else jar.set(name, value);
    }
    this.jars.set(new URL(url).origin, jar);
  }

  /** The Cookie header for a request to `url`, if any. */
  header(url: string): string | undefined {
    const jar = this.jars.get(new URL(url).origin);
    return jar && jar.size > 0 ? [...jar].map(([k, v]) => `${k}=${v}`).join('; ') : undefined;
  }
}
