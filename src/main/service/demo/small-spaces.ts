import type { OutlinePage } from './demo-tree'

const section = (title: string, text: string, children?: OutlinePage[]): OutlinePage => ({ title, body: () => text, children })

export const apiReferenceOutline: OutlinePage[] = [
  section('API overview', 'Every endpoint lives under `/v1` and takes a bearer token.\n\n{% hint style="info" %}\nRate limits are reported in `X-RateLimit-*` headers.\n{% endhint %}'),
  section('Authentication', '```http\nGET /v1/user\nAuthorization: Bearer <token>\n```'),
  section('Endpoints', 'The endpoints, grouped by resource.', [
    section('Spaces', '`GET /v1/spaces/{spaceId}` returns a space.'),
    section('Change requests', '`POST /v1/spaces/{spaceId}/change-requests` opens one.'),
    section('Comments', '`GET /v1/spaces/{spaceId}/comments` lists them.'),
  ]),
  section('Errors', '| Status | Meaning |\n| --- | --- |\n| 400 | Bad request |\n| 404 | Not found |\n| 429 | Slow down |'),
]

export const handbookOutline: OutlinePage[] = [
  section('Engineering handbook', 'How the Quire team works.'),
  section('Onboarding', 'Your first week.', [section('Laptop setup', 'Install Node.js 20 and git.'), section('Access', 'Ask for the service token.')]),
  section('Release process', '{% stepper %}\n{% step %}\nCut a branch.\n{% endstep %}\n\n{% step %}\nTag it.\n{% endstep %}\n{% endstepper %}'),
  section('On call', 'Runbooks for the sync service. See the [incident template](incident-template.md).'),
]
