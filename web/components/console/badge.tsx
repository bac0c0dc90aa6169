/** A status in words, with a colour that repeats what the word says (never colour alone): console lists and pages. */

export type Tone = "good" | "warn" | "bad" | "";

export function Badge({ tone = "", children }: { tone?: Tone; children: React.ReactNode }) {
  return <span className={tone ? `console-badge ${tone}` : "console-badge"}>{children}</span>;
}
