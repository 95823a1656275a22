// What stands between two pages in every Markdown Saccade writes (the CLI's files and the app's export alike):
// a rule a reader sees, and a comment naming the page that tools can split on.
export function pageBreak(pageIndex: number): string {
  return `---\n\n<!-- page ${pageIndex + 1} -->`;
}
