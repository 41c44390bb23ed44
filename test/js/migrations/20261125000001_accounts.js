// The first migration: an accounts table with a few column types and an
// index, through knex's schema builder.
'use strict';

exports.up = async function up(knex) {
  await knex.schema.createTable('accounts', (t) => {
    t.bigInteger('id').primary();
    t.string('owner', 64).notNullable();
    t.integer('balance').notNullable().defaultTo(0);
    t.double('rate');
    t.boolean('active').notNullable().defaultTo(true);
    t.date('opened');
    t.text('note');
  });
  await knex.schema.alterTable('accounts', (t) => {
    t.index(['owner'], 'accounts_owner_idx');
  });
};

exports.down = async function down(knex) {
  await knex.schema.dropTable('accounts');
};
