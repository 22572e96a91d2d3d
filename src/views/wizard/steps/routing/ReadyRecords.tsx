/** Whether Ready records are held for review or sent automatically (SPEC.md section 4): the autosend part, chosen on either routing step. */
import { Radio, Stack } from '@mantine/core';

export function ReadyRecords({ autosend, destination, disabled, onChange }: {
  autosend: boolean;
  /** the destination's display name */
  destination: string;
  disabled: boolean;
  onChange(autosend: boolean): void;
}) {
  return (
    <Radio.Group label="Ready records" value={autosend ? 'send' : 'hold'} onChange={(value) => onChange(value === 'send')}>
      <Stack gap="xs" mt={6}>
        <Radio value="hold" label="Hold for review" description="You review Ready records, then send them." disabled={disabled} />
        <Radio value="send" label="Send automatically" description={`Ready records go to ${destination} without review.`} disabled={disabled} />
      </Stack>
    </Radio.Group>
  );
}
