/** The add-on's public API: what add-on code imports. */
export { authenticatedFetch, authenticatedIntegratorFetch } from './fetch.ts';
export { SdkFetchError } from './fetch-error.ts';
export { addOnEnvironment, addOnContext } from './environment.ts';
export {
  render,
  Heading,
  Text,
  Button,
  TextField,
  TextArea,
  Select,
  Checkbox,
  List,
  ListItem,
  Link,
  Image,
  Stack,
  Banner,
  Spinner,
} from './ui.ts';
export type { AddOnEnvironment, FetchFailureCode } from '../protocol/messages.ts';
export type { SelectOption } from '../protocol/components.ts';
