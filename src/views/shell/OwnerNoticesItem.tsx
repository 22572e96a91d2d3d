/**
 * The user menu's choice of e-mails about what the user owns: an item that is on or off, saved at
 * once (src/machines/ownerNotices.ts). Not offered until the choice has been read.
 */
import { useActorRef, useSelector } from '@xstate/react';
import { IconCheck } from '@tabler/icons-react';
import { Box } from '@mantine/core';
import { OWNER_NOTICES_FAILED, OWNER_NOTICES_LABEL, ownerNoticesMachine } from '../../machines/ownerNotices.ts';
import { MenuItem, MenuLabel } from '../../ui/MenuButton.tsx';

export function OwnerNoticesItem({ orgId, logic = ownerNoticesMachine }: { orgId: string; logic?: typeof ownerNoticesMachine }) {
  const actor = useActorRef(logic, { input: { orgId } });
  const state = useSelector(actor, (s) => s);
  if (state.matches('unavailable')) return null;
  const { on, failed } = state.context;
  return (
    <>
      <MenuItem
        checked={on === true} disabled={!state.matches('ready')}
        leftSection={on ? <IconCheck size={16} aria-hidden /> : <Box w={16} />}
        onClick={() => actor.send({ type: 'notices.toggle' })}
      >
        {OWNER_NOTICES_LABEL}
      </MenuItem>
      {failed && <MenuLabel><span role="alert">{OWNER_NOTICES_FAILED}</span></MenuLabel>}
    </>
  );
}
