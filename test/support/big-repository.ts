import crypto from 'node:crypto'
import fs from 'node:fs'
import path from 'node:path'
import zlib from 'node:zlib'
import { git } from './gitsync-corpus'

/**
 * Commits at `rel` of the repository `repo` (a working tree on main) a blob whose header declares
 * `declaredBytes`, made in milliseconds: the loose object holds that header and only the first KiB
 * of its bytes. Git reports the declared size wherever it reads sizes (`ls-tree -l`, `cat-file -s`);
 * anything that reads the blob's bytes (a fetch, a checkout) fails on it. A service that measures a
 * tree from its object sizes sees a repository of that size; one that reads it first fails instead.
 */
export function commitDeclaredBlob(repo: string, rel: string, declaredBytes: number): string {
  const header = Buffer.from(`blob ${declaredBytes}\0`)
  const oid = crypto.createHash('sha1').update(header).update(rel).digest('hex')
  const dir = path.join(repo, '.git', 'objects', oid.slice(0, 2))
  fs.mkdirSync(dir, { recursive: true })
  fs.writeFileSync(path.join(dir, oid.slice(2)), zlib.deflateSync(Buffer.concat([header, Buffer.alloc(1024)])))
  git(repo, 'update-index', '--add', '--cacheinfo', `100644,${oid},${rel}`)
  git(repo, 'commit', '--quiet', '-m', `add ${rel}`)
  return oid
}
