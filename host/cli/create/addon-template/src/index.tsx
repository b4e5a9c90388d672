/**
 * A sample add-on for the List page (`people.list.send_message`): it greets the signed-in person (host API,
 * through `authenticatedFetch`), shows how many messages they sent, and sends one (the integrator's API, through
 * `authenticatedIntegratorFetch`). It runs in a Worker in the host's sandbox; the tokens never reach it.
 */
import { useEffect, useState } from 'preact/hooks';
import {
  Banner,
  Button,
  Heading,
  Stack,
  Text,
  TextArea,
  addOnContext,
  authenticatedFetch,
  authenticatedIntegratorFetch,
  render,
} from '@addon-kit/sdk';

interface Me {
  id: string;
  firstName: string;
}

/** The signed-in person, from the host's `/current/v2/me`. */
async function currentPerson(): Promise<Me> {
  const response = await authenticatedFetch('/current/v2/me');
  if (!response.ok) throw new Error(`the host answered HTTP ${response.status}`);
  const me = (await response.json()) as { data: { id: string; attributes: { first_name: string } } };
  return { id: me.data.id, firstName: me.data.attributes.first_name };
}

/** How many messages this person sent through the integrator (`GET /api/messages`). */
async function sentCount(): Promise<number> {
  const response = await authenticatedIntegratorFetch('/api/messages');
  if (!response.ok) throw new Error(`the integrator answered HTTP ${response.status}`);
  return ((await response.json()) as { data: unknown[] }).data.length;
}

function App() {
  const listId = String(addOnContext().props.listId ?? '');
  const [me, setMe] = useState<Me | null>(null);
  const [sent, setSent] = useState<number | null>(null);
  const [message, setMessage] = useState('Hello from my add-on');
  const [status, setStatus] = useState<{ tone: 'success' | 'critical'; text: string } | null>(null);

  useEffect(() => {
    currentPerson().then(setMe, (e: Error) => setStatus({ tone: 'critical', text: e.message }));
    sentCount().then(setSent, (e: Error) => setStatus({ tone: 'critical', text: e.message }));
  }, []);

  const send = async () => {
    if (!me) return;
    // A message to yourself: a real add-on would pick people of the List (`/people/v2/lists/{id}/people`).
    const response = await authenticatedIntegratorFetch('/api/messages', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ list_id: listId, person_ids: [me.id], message }),
    });
    if (!response.ok)
      return setStatus({ tone: 'critical', text: `The integrator refused the message (HTTP ${response.status})` });
    const body = (await response.json()) as { data: { id: string } };
    setStatus({ tone: 'success', text: `Message ${body.data.id} sent.` });
    setSent((n) => (n ?? 0) + 1);
  };

  return (
    <Stack gap="medium">
      <Heading>{me === null ? 'Hello' : `Hello, ${me.firstName}`}</Heading>
      <Text tone="subdued">{sent === null ? 'Counting your messages…' : `You have sent ${sent} message(s).`}</Text>
      <TextArea label="Message" value={message} onInput={setMessage} />
      <Button variant="primary" disabled={me === null || message.trim() === ''} onPress={send}>
        Send message
      </Button>
      {status ? <Banner tone={status.tone}>{status.text}</Banner> : null}
    </Stack>
  );
}

render(<App />);
