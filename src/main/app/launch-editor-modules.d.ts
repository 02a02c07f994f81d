// launch-editor ships types for its main entry only; Quire uses two of its modules directly (see editor-launch.ts).

declare module 'launch-editor/guess.js' {
  /**
   * The editor command as launch-editor guesses it: `specifiedEditor` parsed by shell-quote, else
   * $LAUNCH_EDITOR, a known editor that is running (`ps`), $VISUAL, $EDITOR; `[null]` when none.
   * shell-quote may give operator objects ({ op: '|' }) for a specified command line.
   */
  function guessEditor(specifiedEditor?: string): Array<string | null | { op: string } | { comment: string }>
  export default guessEditor
}

declare module 'launch-editor/get-args.js' {
  /** The arguments that open `fileName` at the line in `editor` (by its basename); just the file for editors it does not know. */
  function getArgumentsForFile(editor: string, fileName: string, lineNumber?: number, columnNumber?: number): Array<string | number>
  export default getArgumentsForFile
}
