import type { BodyLinks, OutlineFile, OutlinePage } from './demo-tree'

// The demo's largest space: 40+ pages three levels deep, written the way GitBook writes them, with its
// blocks (hints, tabs, titled code, content-refs, figures, files) and a few deliberately broken links.

const hint = (style: 'info' | 'warning' | 'danger' | 'success', text: string) => `{% hint style="${style}" %}\n${text}\n{% endhint %}`

const tabs = (items: Array<[string, string]>) =>
  `{% tabs %}\n${items.map(([title, text]) => `{% tab title="${title}" %}\n${text}\n{% endtab %}`).join('\n\n')}\n{% endtabs %}`

const code = (title: string, lang: string, text: string) => `{% code title="${title}" %}\n\`\`\`${lang}\n${text}\n\`\`\`\n{% endcode %}`

const contentRef = (target: string) => `{% content-ref url="${target}" %}\n[${target.replace(/^<|>$/g, '')}](${target})\n{% endcontent-ref %}`

const figure = (src: string, caption: string) => `<figure><img src="${src.replace(/^<|>$/g, '')}" alt=""><figcaption><p>${caption}</p></figcaption></figure>`

/** A body for a page: an intro, then blocks chosen by the page's place so every kind appears many times. */
function prose(topic: string, extra: (l: BodyLinks) => string[] = () => []) {
  return (l: BodyLinks) =>
    [
      `This page explains **${topic}**. Read it once end to end; come back to the tables when you need a detail.`,
      `Quire keeps every page as a plain markdown file, so the text you see here is exactly what lands in your editor.`,
      ...extra(l),
    ].join('\n\n')
}

export const userGuideFiles: OutlineFile[] = [
  // 1x1 transparent PNGs: real image files, small enough to keep the demo light.
  { name: 'quire-logo.png', contentType: 'image/png', bytes: png(), dimensions: { width: 1, height: 1 } },
  { name: 'sync-overview.png', contentType: 'image/png', bytes: png(), dimensions: { width: 1, height: 1 } },
  { name: 'image (8).png', contentType: 'image/png', bytes: png(), dimensions: { width: 1, height: 1 } },
  { name: 'architecture.svg', contentType: 'image/svg+xml', bytes: new TextEncoder().encode(svg()) },
  { name: 'checklist.pdf', contentType: 'application/pdf', bytes: new TextEncoder().encode(minimalPdf()) },
]

export const userGuideOutline: OutlinePage[] = [
  {
    title: 'Welcome to Quire',
    description: 'Edit your documentation offline, in the editor you love.',
    body: (l) =>
      [
        `Quire mirrors your documentation spaces into a folder of markdown files and sends your edits back as change requests.`,
        figure(l.asset('sync-overview.png'), 'How Quire keeps your folder and the service in step'),
        hint('info', 'New here? Start with the quick start: it takes five minutes.'),
        contentRef(l.page('Quick start')),
        `* [Install Quire](${l.page('Installation')})\n* [Write your first page](${l.page('Writing pages')})\n* [Review a change request](${l.page('Change requests')})`,
      ].join('\n\n'),
  },
  {
    title: 'Getting started',
    icon: 'rocket',
    body: prose('the first steps with Quire', (l) => [contentRef(l.page('Installation')), contentRef(l.page('Quick start'))]),
    children: [
      {
        title: 'Installation',
        body: (l) =>
          [
            'Quire runs on macOS, Windows and Linux.',
            tabs([
              ['macOS', 'Open the `.dmg` and drag Quire to **Applications**.'],
              ['Windows', 'Run the installer and follow the steps.'],
              ['Linux', code('install.sh', 'bash', 'sudo apt install ./quire_amd64.deb')],
            ]),
            hint('warning', `Upgrading from the legacy client? Read the [old setup guide](${l.missing('legacy-setup.md')}) first.`),
          ].join('\n\n'),
      },
      {
        title: 'Quick start',
        body: (l) =>
          [
            '1. Sign in with your endpoint and token.\n2. Pick the spaces to sync.\n3. Open the workspace folder in your editor.',
            code('terminal', 'bash', 'npx quire login --endpoint https://api.example.com --token $TOKEN\nnpx quire sync --once --all'),
            `Next: [configure Quire](${l.page('Configuration')}).`,
          ].join('\n\n'),
      },
      {
        title: 'Configuration',
        body: prose('where Quire keeps its settings', (l) => [contentRef(l.page('Environment variables')), contentRef(l.page('Config file'))]),
        children: [
          {
            title: 'Environment variables',
            body: () =>
              [
                '| Variable | Meaning |\n| --- | --- |\n| `QUIRE_WORKSPACE` | Folder the spaces are mirrored into |\n| `QUIRE_INTERVAL` | Seconds between sync passes |',
                hint('info', 'Variables win over the config file.'),
              ].join('\n\n'),
          },
          {
            title: 'Config file',
            body: () => code('quire.json', 'json', '{\n  "workspace": "~/Docs",\n  "interval": 60\n}'),
          },
          { title: 'Proxies', body: prose('running Quire behind a corporate proxy') },
        ],
      },
      { title: 'First project', body: prose('setting up a first documentation project', (l) => [`See also [Publishing](${l.page('Publishing')}).`]) },
    ],
  },
  {
    title: 'Guides',
    icon: 'book',
    body: prose('the day-to-day guides'),
    children: [
      {
        title: 'Writing pages',
        body: (l) =>
          [
            'Every page starts with a `# Title`. Front matter at the top sets the description and icon.',
            code('getting-started.md', 'markdown', '---\ndescription: A short summary\n---\n\n# Getting started\n\nHello.'),
            `Images live in \`.gitbook/assets\`: ![The Quire logo](${l.asset('quire-logo.png')})`,
            `Screenshots with spaces in their names work too: ![](${l.asset('image (8).png')})`,
          ].join('\n\n'),
      },
      {
        title: 'Using blocks',
        body: prose('GitBook blocks in markdown', (l) => [contentRef(l.page('Hints')), contentRef(l.page('Tabs'))]),
        children: [
          { title: 'Hints', body: () => ['info', 'warning', 'danger', 'success'].map((s) => hint(s as 'info', `A ${s} hint.`)).join('\n\n') },
          {
            title: 'Tabs',
            body: () =>
              tabs([
                ['JavaScript', code('index.js', 'javascript', "console.log('hello')")],
                ['Python', code('main.py', 'python', "print('hello')")],
              ]),
          },
          {
            title: 'Code blocks',
            body: () => [code('server.ts', 'typescript', 'export const port = 4000'), '```\nplain code without a title\n```'].join('\n\n'),
          },
          { title: 'Embeds', body: () => '{% embed url="https://www.youtube.com/watch?v=dQw4w9WgXcQ" %}\nA walkthrough video.\n{% endembed %}' },
          { title: 'Files', body: (l) => `{% file src="${l.asset('checklist.pdf').replace(/^<|>$/g, '')}" %}\nThe release checklist.\n{% endfile %}` },
          {
            title: 'Expandable sections',
            body: () => '<details>\n\n<summary>Why markdown?</summary>\n\nBecause every editor speaks it.\n\n</details>',
          },
          { title: 'Math', body: () => '$$\nf(x) = x^2 + 2x + 1\n$$' },
        ],
      },
      {
        title: 'Collaboration',
        body: prose('working with your team'),
        children: [
          {
            title: 'Change requests',
            body: (l) => [prose('change requests')(l), hint('success', 'Merged change requests update everyone\u2019s folder on the next pass.')].join('\n\n'),
          },
          { title: 'Comments', body: () => 'Write `<!-- comment: your question -->` in a page and Quire posts it as a comment.' },
          { title: 'Reviews', body: prose('reviews and approvals') },
        ],
      },
      {
        title: 'Publishing',
        body: (l) => [prose('publishing a docs site')(l), figure(l.asset('architecture.svg'), 'Where a published site gets its content')].join('\n\n'),
      },
      { title: 'Working offline', body: prose('editing without a connection', (l) => [`Conflicts are explained in [Troubleshooting](${l.page('Troubleshooting')}).`]) },
    ],
  },
  {
    title: 'Integrations',
    icon: 'plug',
    body: prose('the integrations'),
    children: [
      {
        title: 'Git Sync',
        body: prose('Git Sync compatibility', (l) => [contentRef(l.page('GitHub')), contentRef(l.page('GitLab'))]),
        children: [
          { title: 'GitHub', body: prose('syncing with GitHub') },
          { title: 'GitLab', body: prose('syncing with GitLab') },
          {
            title: 'Troubleshooting',
            body: (l) =>
              [
                prose('fixing sync problems')(l),
                `The [conflict guide](${l.missing('../../guides/conflicts.md')}) moved; see [Working offline](${l.page('Working offline')}).`,
                `![Diagram](${l.missing('../../.gitbook/assets/missing-diagram.png')})`,
              ].join('\n\n'),
          },
        ],
      },
      { title: 'Slack', body: prose('notifications in Slack') },
      { title: 'Webhooks', body: () => code('payload.json', 'json', '{ "event": "change_request.merged" }') },
    ],
  },
  {
    title: 'Reference',
    icon: 'code',
    body: prose('the reference material'),
    children: [
      {
        title: 'Command line',
        body: prose('the quire command', (l) => [contentRef(l.page('quire sync'))]),
        children: [
          { title: 'quire sync', body: () => code('terminal', 'bash', 'quire sync --once --all') },
          { title: 'quire watch', body: () => code('terminal', 'bash', 'quire watch') },
          { title: 'quire status', body: () => code('terminal', 'bash', 'quire status --json') },
          { title: 'quire links', body: () => code('terminal', 'bash', 'quire links --broken') },
          { title: 'quire comment', body: () => code('terminal', 'bash', 'quire comment guides/writing-pages.md "Is this still true?"') },
        ],
      },
      { title: 'Settings reference', body: prose('every setting') },
      { title: 'Keyboard shortcuts', body: () => '| Keys | Action |\n| --- | --- |\n| `Ctrl+R` | Sync now |\n| `Ctrl+,` | Settings |' },
      { title: 'Glossary', body: () => '**Space** — a set of pages.\n\n**Change request** — a proposed edit.\n\n**Merge base** — the last synced version of a file.' },
    ],
  },
  {
    title: 'FAQ',
    body: (l) => [`**Where are my files?** In the workspace folder.`, `**Does Quire need an account?** No: see [Installation](${l.page('Installation')}).`].join('\n\n'),
  },
  {
    title: 'Changelog',
    body: prose('what changed'),
    children: [
      { title: '2026', body: () => '* Sync up\n* Tray icon states' },
      { title: '2025', body: () => '* First release' },
    ],
  },
  { title: 'Internal notes', hidden: true, body: () => 'Hidden from the table of contents of the published site, still synced.' },
]

function png(): Uint8Array {
  return Uint8Array.from(
    Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==', 'base64'),
  )
}

function svg(): string {
  return '<svg xmlns="http://www.w3.org/2000/svg" width="120" height="40"><rect width="120" height="40" fill="#eef"/><text x="10" y="25">service</text></svg>\n'
}

function minimalPdf(): string {
  return '%PDF-1.4\n1 0 obj<</Type/Catalog/Pages 2 0 R>>endobj\n2 0 obj<</Type/Pages/Count 0/Kids[]>>endobj\ntrailer<</Root 1 0 R>>\n%%EOF\n'
}
