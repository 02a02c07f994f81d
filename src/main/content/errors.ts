/**
 * The one error type of the content module. The service maps it to a 400
 * the sync engine shows `message` to the user, so messages name the offending
 * input precisely (change index, page id, line).
 */
export class ContentError extends Error {
  /** Index of the offending change in a batch, when the error comes from one. */
  readonly changeIndex: number | undefined

  constructor(message: string, changeIndex?: number) {
    super(changeIndex === undefined ? message : `changes[${changeIndex}]: ${message}`)
    this.name = 'ContentError'
    this.changeIndex = changeIndex
  }
}
