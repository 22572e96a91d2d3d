/** Where formulas are listed and no data source can be a formula's source yet: who adds one, and the way to Connections. */
import { Button, Card, Text } from '@mantine/core';
import { Link } from 'react-router';
import { can, type Policies } from '../../domain/roles.ts';
import { ROUTES } from '../../domain/screens.ts';

export function NoSourceNotice({ policies }: { policies: Policies }) {
  return (
    <Card withBorder>
      <Text>A formula reads from a data source. {can(policies, 'datasource', 'create') ? 'Add one first.' : 'A colleague who manages connections adds one first.'}</Text>
      {can(policies, 'datasource', 'view') && <Button component={Link} to={ROUTES.connections} mt="sm" w="fit-content">Go to Connections</Button>}
    </Card>
  );
}
