/** Non-production builds only: the form fields used across the app, in every state. */
import { Checkbox, PasswordInput, Select, Stack, TextInput, Title } from '@mantine/core';

export function FieldShowcasePage() {
  return (
    <Stack p="xl" maw={480}>
      <Title order={1}>Field showcase</Title>
      <TextInput label="Text" placeholder="Type here" />
      <TextInput label="Required" withAsterisk error="Field is required and can be 150 characters at most." />
      <PasswordInput label="Secret" />
      <Select label="Choice" data={['One', 'Two', 'Three']} />
      <Checkbox label="Check" />
    </Stack>
  );
}
