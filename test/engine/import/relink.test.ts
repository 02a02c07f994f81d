import { describe, expect, it } from 'vitest'
import { relinkedText } from '../../../src/main/engine/links/relink'

/**
 * Links between pages of an imported tree, re-pointed to where the content API placed the pages
 * (issue 24): the group `guides` could not be created, so `guides/setup.md` and `guides/deploy/README.md`
 * came back at the top level.
 */
const pages = new Map([
  ['README.md', 'README.md'],
  ['guides/setup.md', 'setup.md'],
  ['guides/deploy/README.md', 'deploy/README.md'],
  ['guides/deploy/docker.md', 'deploy/docker.md'],
  ['reference/api.md', 'reference/api.md'],
])
const placements = { pages }

describe('relinkedText', () => {
  it('re-points markdown, anchor, HTML and content-ref links to the places the pages came back at', () => {
    const home = [
      '# Home',
      '',
      'Start with [setup](guides/setup.md), then [deploy](guides/deploy/#docker) or [docker](guides/deploy/docker.md#run).',
      '',
      '<a href="guides/setup.md">Setup</a>',
      '',
      '{% content-ref url="guides/deploy/" %}',
      '[deploy](guides/deploy/)',
      '{% endcontent-ref %}',
      '',
      'Unchanged: [api](reference/api.md), [site](https://example.com), [top](#home), ![logo](.gitbook/assets/logo.png).',
      '',
    ].join('\n')
    expect(relinkedText(home, home, 'README.md', 'README.md', placements)).toBe(
      [
        '# Home',
        '',
        'Start with [setup](setup.md), then [deploy](deploy/#docker) or [docker](deploy/docker.md#run).',
        '',
        '<a href="setup.md">Setup</a>',
        '',
        '{% content-ref url="deploy/" %}',
        '[deploy](deploy/)',
        '{% endcontent-ref %}',
        '',
        'Unchanged: [api](reference/api.md), [site](https://example.com), [top](#home), ![logo](.gitbook/assets/logo.png).',
        '',
      ].join('\n'),
    )
  })

  it('links of a page that moved: from its new place; kept as written where the target moved with it', () => {
    const setup = '# Setup\n\n[Home](../README.md), [API](../reference/api.md), [Docker](deploy/docker.md)\n'
    expect(relinkedText(setup, setup, 'guides/setup.md', 'setup.md', placements)).toBe('# Setup\n\n[Home](README.md), [API](reference/api.md), [Docker](deploy/docker.md)\n')
    // The pages of guides/deploy/ moved together: its links between themselves stay as they are.
    const docker = '# Docker\n\n[Back](README.md) and [setup](../setup.md).\n'
    expect(relinkedText(docker, docker, 'guides/deploy/docker.md', 'deploy/docker.md', placements)).toBe('# Docker\n\n[Back](README.md) and [setup](../setup.md).\n')
  })

  it('works from the tree text: the page as the service holds it (file links re-pointed already) is fixed, and fixing it again changes nothing', () => {
    const source = '# Setup\n\n![shot](../.gitbook/assets/shot.png) [Home](../README.md)\n'
    const held = '# Setup\n\n![shot](.gitbook/assets/shot.png) [Home](../README.md)\n'
    const fixed = relinkedText(held, source, 'guides/setup.md', 'setup.md', placements)
    expect(fixed).toBe('# Setup\n\n![shot](.gitbook/assets/shot.png) [Home](README.md)\n')
    expect(relinkedText(fixed!, source, 'guides/setup.md', 'setup.md', placements)).toBe(fixed)
    // Predicting what the service holds: file links too, when their places are given.
    expect(relinkedText(source, source, 'guides/setup.md', 'setup.md', { pages, files: new Map([['.gitbook/assets/shot.png', '.gitbook/assets/shot.png']]) })).toBe(fixed)
  })

  it('leaves links to what was not imported as written, and guesses nothing when the links do not line up', () => {
    const text = '[License](../LICENSE.md) [gone](missing.md)\n'
    expect(relinkedText(text, text, 'guides/setup.md', 'setup.md', placements)).toBe(text)
    expect(relinkedText('[one](a.md)\n', '[one](a.md) [two](b.md)\n', 'guides/setup.md', 'setup.md', placements)).toBeUndefined()
  })
})
