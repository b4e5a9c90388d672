/** The host's component map: exactly the allow-list of protocol/components.ts, each with a preact rendering. */
import { createRemoteComponentRenderer, type RemoteComponentRendererMap } from '@remote-dom/preact/host';
import type { ComponentType } from 'preact';
import type { ComponentName } from '../../protocol/components.ts';
import { Banner, Heading, Image, Link, List, ListItem, Spinner, Stack, Text } from './content.tsx';
import { Button, Checkbox, Select, TextArea, TextField } from './controls.tsx';

// Each component has its own props; `never` is the one props type they all accept.
const IMPLEMENTATIONS: Record<ComponentName, ComponentType<never>> = {
  'ui-heading': Heading,
  'ui-text': Text,
  'ui-button': Button,
  'ui-text-field': TextField,
  'ui-text-area': TextArea,
  'ui-select': Select,
  'ui-checkbox': Checkbox,
  'ui-list': List,
  'ui-list-item': ListItem,
  'ui-link': Link,
  'ui-image': Image,
  'ui-stack': Stack,
  'ui-banner': Banner,
  'ui-spinner': Spinner,
};

/** Element name → renderer; validated records never name anything else. */
export function createComponentMap(): RemoteComponentRendererMap {
  return new Map(
    Object.entries(IMPLEMENTATIONS).map(([name, component]) => [name, createRemoteComponentRenderer(component)]),
  );
}
