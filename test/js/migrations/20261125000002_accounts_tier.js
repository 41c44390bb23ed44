// The second migration: a column added to an existing table (and dropped
// again on the way down), in a batch of its own.
'use strict';

exports.up = async function up(knex) {
  await knex.schema.alterTable('accounts', (t) => {
    t.string('tier', 16);
  });
};

exports.down = async function down(knex) {
  await knex.schema.alterTable('accounts', (t) => {
    t.dropColumn('tier');
  });
};
